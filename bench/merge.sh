#!/usr/bin/env bash
# merge over a large run: a journal of LINES games (default 1,000,000) made from a real game of
# the bundled engines, then `gomoku-cli merge` and `gomoku-cli sprt` over it, and over the same
# games split into SHARDS shard journals (default 4); prints wall time and peak memory of each.
#   LINES=1000000 SHARDS=4 bench/merge.sh     (NO_BUILD=1 to skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${LINES:-1000000}
SHARDS=${SHARDS:-4}
[ -n "${NO_BUILD:-}" ] || cargo build --release --workspace --bins >/dev/null
R=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$R/gomoku-cli" -engine "cmd=$R/pbrain-random" name=A -engine "cmd=$R/pbrain-random" name=B \
    -games 2 -repeat -sprt elo0=0 elo1=5 -journal "$tmp/seed.jsonl" -quiet -noprogress >/dev/null
python3 - "$tmp" "$LINES" "$SHARDS" <<'PY'
import json, sys, random
tmp, lines, shards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = [json.loads(l) for l in open(f"{tmp}/seed.jsonl")]
header, game = rows[0], rows[1]
header["settings"]["games"] = header["settings"]["total_games"] = lines
rnd = random.Random(1)
def write(path, numbers):
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for n in numbers:
            game["game"], game["pair_game"] = n, n - 1
            game["black_engine"], game["white_engine"] = (0, 1) if n % 2 else (1, 0)
            game["result"] = rnd.choice(["1-0", "0-1", "1-0", "1/2-1/2"])
            game["ended"] = "2026-11-23T00:00:%02d.%09d+00:00" % (n // 1000000 % 60, n % 1000000)
            f.write(json.dumps(game) + "\n")
write(f"{tmp}/one.jsonl", range(1, lines + 1))
import os
os.mkdir(f"{tmp}/run")
for k in range(shards):
    header["settings"]["shard"] = {"index": k + 1, "count": shards}
    mine = (n for n in range(1, lines + 1) if (n - 1) // 2 % shards == k)
    write(f"{tmp}/run/shard-{k+1}-of-{shards}.journal.jsonl", mine)
PY
ls -la "$tmp/one.jsonl" | awk '{printf "journal: %d lines, %.0f MB\n", '"$LINES"', $5/1e6}'
measure() {
    /usr/bin/time -f "%e s wall, %M KiB peak RSS" "$@" >/dev/null 2>"$tmp/time" || { cat "$tmp/time"; exit 1; }
    tail -1 "$tmp/time"
}
echo "merge one journal:       $(measure "$R/gomoku-cli" merge "$tmp/one.jsonl")"
echo "sprt one journal:        $(measure "$R/gomoku-cli" sprt --elo0 0 --elo1 5 "$tmp/one.jsonl")"
echo "merge $SHARDS shard journals: $(measure "$R/gomoku-cli" merge "$tmp/run")"
