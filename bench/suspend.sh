#!/usr/bin/env bash
# The cost of -suspend (a SIGSTOP after each of an engine's moves, a SIGCONT before the next
# request) and of the memory watch, against the same run without -suspend: instant engines
# (pbrain-random, fixed seeds: the same games both ways), interleaved repetitions, best and
# median wall time per move of each, and their ratio. The memory watch is always on; with
# instant engines it never reads /proc (its first read is 0.1 s into a move), so what this
# measures for it is the timer it arms per move.
#   GAMES=400 DRAWAFTER=100 REPS=5 CONCURRENCY=1 bench/suspend.sh   (NO_BUILD=1 to skip the build)
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-400}
DRAWAFTER=${DRAWAFTER:-100}
REPS=${REPS:-5}
CONCURRENCY=${CONCURRENCY:-1}
[ -n "${NO_BUILD:-}" ] || cargo build --release --workspace --bins >/dev/null
R=$PWD/target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
    local extra=$1 out=$2
    rm -f "$tmp/j.jsonl"
    local t0 t1
    t0=$(date +%s.%N)
    "$R/gomoku-cli" -engine "cmd=$R/pbrain-random --seed 1" name=a -engine "cmd=$R/pbrain-random --seed 2" name=b \
        -each tc=0/10 -games "$GAMES" -drawafter "$DRAWAFTER" -concurrency "$CONCURRENCY" \
        -journal "$tmp/j.jsonl" -quiet -noprogress $extra >/dev/null
    t1=$(date +%s.%N)
    local moves
    moves=$(python3 -c "import json,sys; print(sum(len(json.loads(l).get('times_ms',[])) for l in open('$tmp/j.jsonl') if '\"game\"' in l))")
    echo "$(echo "($t1 - $t0) * 1000000 / $moves" | bc -l)" >>"$out"
}
for _ in $(seq "$REPS"); do
    run "" "$tmp/plain"
    run "-suspend" "$tmp/suspend"
done
python3 - "$tmp/plain" "$tmp/suspend" "$GAMES" "$CONCURRENCY" <<'PY'
import statistics, sys
plain = [float(x) for x in open(sys.argv[1])]
susp = [float(x) for x in open(sys.argv[2])]
print(f"{sys.argv[3]} games of up to 100 stones, concurrency {sys.argv[4]}, {len(plain)} repetitions")
print(f"without -suspend: best {min(plain):.1f} us/move, median {statistics.median(plain):.1f}")
print(f"with -suspend:    best {min(susp):.1f} us/move, median {statistics.median(susp):.1f}")
print(f"ratio: best {min(susp)/min(plain):.2f}x, median {statistics.median(susp)/statistics.median(plain):.2f}x")
PY
