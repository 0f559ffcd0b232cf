#!/usr/bin/env bash
# The runner's CPU per move spent hearing engines: the same games with and without search output.
#
#   bench/search_cpu.sh
#
# Both runs play the same games: pbrain-faulty (seeded random legal moves, instant) against itself,
# 15x15 freestyle, -journal on. "quiet" engines print nothing about their search; "detail" engines
# print before every move a well-formed detail block (--search-good, 13 lines) plus LINES lines of
# further blocks (--search-flood LINES; 130 by default, ten blocks: a searcher reporting ten
# iterations a move), all read by the runner and the last complete one kept in the journal. Runs
# alternate (quiet detail, detail quiet, ...) so drift in the machine's load hits both alike. Each
# run's own CPU is the runner process's user + system time, engines excluded (runstat.py).
# Prints the median CPU per move of each and the median paired ratio detail / quiet.
#
# Environment: GAMES (200), PAIRS (10), LINES (130), NO_BUILD=1 (use target/release as built).
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-200}
PAIRS=${PAIRS:-10}
LINES=${LINES:-130}
R=target/release
if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release -p gomoku-cli -p pbrain-faulty --bins >&2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # KIND PAIR -> "wall cpu moves"
    local kind=$1 pair=$2 flags=""
    [ "$kind" = detail ] && flags="--search-good --search-flood $LINES"
    local dir="$tmp/$kind-$pair"
    mkdir -p "$dir"
    local stat
    stat=$(cd "$dir" && python3 "$OLDPWD/bench/runstat.py" "$OLDPWD/$R/gomoku-cli" \
        -engine "cmd=$OLDPWD/$R/pbrain-faulty --seed 1 $flags" name=a \
        -engine "cmd=$OLDPWD/$R/pbrain-faulty --seed 2 $flags" name=b \
        -each tc=0/10 -games "$GAMES" -journal j.jsonl -noprogress)
    local moves
    moves=$(python3 -c "
import json,sys
n=0
for l in open('$dir/j.jsonl'):
    e=json.loads(l)
    if 'game' in e: n+=len(e['times_ms'])
print(n)")
    echo "$stat $moves"
}

raw="$tmp/raw"
for pair in $(seq 1 "$PAIRS"); do
    if [ $((pair % 2)) = 1 ]; then order="quiet detail"; else order="detail quiet"; fi
    for kind in $order; do
        echo "$kind $pair $(run "$kind" "$pair")" >>"$raw"
    done
done
python3 - "$raw" "$LINES" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for kind, pair, wall, cpu, moves in rows:
    by.setdefault(kind, {})[pair] = (float(wall), float(cpu), int(moves))
per_move = {k: [v[1] / v[2] * 1e6 for v in d.values()] for k, d in by.items()}
ratios = [by["detail"][p][1] / by["quiet"][p][1] for p in by["quiet"] if by["quiet"][p][1] > 0]
moves = {k: {v[2] for v in d.values()} for k, d in by.items()}
print(f"moves per run: quiet {sorted(moves['quiet'])}, detail {sorted(moves['detail'])}")
for k in ("quiet", "detail"):
    print(f"{k:6}  runner CPU per move: median {statistics.median(per_move[k]):.1f} us")
print(f"detail/quiet runner CPU, median of {len(ratios)} pairs: {statistics.median(ratios):.3f} "
      f"(search output: 13 + {sys.argv[2]} lines a move)")
PY
