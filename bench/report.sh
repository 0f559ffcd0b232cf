#!/usr/bin/env bash
# The HTML report of a large run: a journal of GAMES games (default 100,000) made from SEED_GAMES
# real games of the bundled engines under RULE (default 4, renju, so every position's forbidden
# points are computed), then `gomoku-cli report` over it: wall time, peak memory, file size; and,
# when Chromium is installed, the time headless Chromium takes to load the page and run its script.
#   GAMES=100000 RULE=4 bench/report.sh     (NO_BUILD=1 to skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-100000}
RULE=${RULE:-4}
SEED_GAMES=${SEED_GAMES:-200}
[ -n "${NO_BUILD:-}" ] || cargo build --release --workspace --bins >/dev/null
R=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "$RULE" in 4) book=openings/renju15.txt ;; *) book=openings/freestyle15.txt ;; esac
"$R/gomoku-cli" -engine "cmd=$R/pbrain-scout" name=scout -engine "cmd=$R/pbrain-random" name=random \
    -each tc=5/0.5 -rule "$RULE" -games "$SEED_GAMES" -repeat -concurrency 2 \
    -openings "file=$book" type=pos -sprt elo0=0 elo1=5 alpha=0.000001 beta=0.000001 \
    -journal "$tmp/seed.jsonl" -quiet -noprogress >/dev/null || true
python3 - "$tmp" "$GAMES" <<'PY'
import json, sys
tmp, games = sys.argv[1], int(sys.argv[2])
rows = [json.loads(l) for l in open(f"{tmp}/seed.jsonl")]
header, seed = rows[0], rows[1:]
header["settings"]["total_games"] = games
header["settings"]["games"] = games
with open(f"{tmp}/big.jsonl", "w") as f:
    f.write(json.dumps(header) + "\n")
    for n in range(1, games + 1):
        g = seed[(n - 1) % len(seed)]
        # Keep each seed game's colours consistent with its pair slot.
        g = dict(g, game=n, pair_game=n - 1)
        f.write(json.dumps(g) + "\n")
open(f"{tmp}/seed_count", "w").write(str(len(seed)))
PY
size() { stat -c %s "$1" | awk '{printf "%.1f MB", $1/1e6}'; }
echo "journal: $GAMES games (from $(cat "$tmp/seed_count") real games, rule $RULE), $(size "$tmp/big.jsonl")"
/usr/bin/time -f "%e s wall, %M KiB peak RSS" "$R/gomoku-cli" report "$tmp/big.jsonl" -o "$tmp/r.html" \
    >/dev/null 2>"$tmp/time" || { cat "$tmp/time"; exit 1; }
echo "report: $(tail -1 "$tmp/time"), page $(size "$tmp/r.html")"
if command -v chromium >/dev/null 2>&1; then
    start=$(date +%s.%N)
    chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
        --dump-dom "file://$tmp/r.html#game=$GAMES&ply=end" >"$tmp/dom.html" 2>/dev/null
    end=$(date +%s.%N)
    ready=$(grep -c 'data-viewer="ready"' "$tmp/dom.html" || true)
    printf 'chromium: page loaded, viewer at game %s in %.1f s (viewer ready: %s)\n' "$GAMES" "$(echo "$end - $start" | bc)" "$ready"
else
    echo "chromium: not installed, load time not measured"
fi
