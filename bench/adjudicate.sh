#!/usr/bin/env bash
# Adjudication (issue 20): pbrain-scout depth 4 against depth 3 from the same 100 openings (random
# order, fixed seed), each played twice (-repeat: 200 games), without and with -resign/-draw. For
# each: the SPRT over the 200 games (sprt subcommand on the journal), the score, the moves played,
# how the games ended and the wall time; then the same with -sprt in the run, which stops when the
# test decides.
#
# Usage: bench/adjudicate.sh [OUT_DIR]   (BIN=target/debug NO_BUILD=1 to use a debug build)
# Env: GAMES (-games, default 200: 100 openings twice), REPS (runs of each, the median wall time
# is shown; default 3), ADJ (the adjudication options), SPRT (-sprt settings).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
build_release
BIN=${BIN:-target/release}
OUT=${1:-$(mktemp -d)}
GAMES=${GAMES:-200}
REPS=${REPS:-3}
ADJ=${ADJ:-"-resign movecount=3 score=600 mate=1 -draw movenumber=30 movecount=8 score=30"}
SPRT=${SPRT:-"elo0=0 elo1=50"}
mkdir -p "$OUT"
echo "machine: $(machine)"
echo "binaries: $BIN, -games $GAMES -repeat from openings/freestyle15.txt (srand=20), tc=10/0"
echo "adjudication: $ADJ; SPRT: $SPRT"

# run NAME EXTRA...: REPS runs into $OUT/NAME.jsonl (the last kept); prints the median wall time.
run() {
    for _ in $(seq "$REPS"); do
        rm -f "$OUT/$1.jsonl" "$OUT/$1.pgn"
        run_once "$@"
    done | median
}

# run_once NAME EXTRA...: one run into $OUT/NAME.jsonl; prints its wall time in seconds.
run_once() {
    local name=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN/gomoku-cli" -engine "cmd=$BIN/pbrain-scout --depth 4" name=depth4 \
        -engine "cmd=$BIN/pbrain-scout --depth 3" name=depth3 -each tc=10/0 \
        -games "$GAMES" -repeat -concurrency 1 \
        -openings file=openings/freestyle15.txt type=pos order=random srand=20 \
        -journal "$OUT/$name.jsonl" -pgn "$OUT/$name.pgn" -noprogress -quiet "$@" \
        >"$OUT/$name.out" 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

# summary NAME WALL: one line of figures from the journal.
summary() {
    local verdict
    verdict=$("$BIN/gomoku-cli" sprt --json $(echo "$SPRT" | sed 's/\([a-z0-9]*\)=/--\1 /g') \
        "$OUT/$1.jsonl")
    python3 - "$OUT/$1.jsonl" "$2" "$verdict" "$1" <<'EOF'
import collections, json, sys
games = [json.loads(l) for l in open(sys.argv[1]) if '"game"' in l]
games = [g for g in games if "game" in g]
moves = sum(len(g["times_ms"]) for g in games)
ends = collections.Counter(g["termination"] for g in games)
v = json.loads(sys.argv[3])
verdict = {None: "continue", "h0": "H0", "h1": "H1"}.get(v["verdict"], v["verdict"])
print(f"| {sys.argv[4]} | {len(games)} | {v['score']*100:.1f} % | {v['llr']:.2f} ({verdict}) "
      f"| {moves} | {moves/len(games):.1f} | {float(sys.argv[2]):.1f} s | "
      + ", ".join(f"{k} {n}" for k, n in sorted(ends.items())) + " |")
EOF
}

echo
echo "| run | games | depth 4's score | LLR (verdict) | moves played | moves a game | wall | terminations |"
echo "|---|---|---|---|---|---|---|---|"
wall=$(run plain)
summary plain "$wall"
# shellcheck disable=SC2086
wall=$(run adjudicated $ADJ)
summary adjudicated "$wall"
# shellcheck disable=SC2086
wall=$(run plain-sprt -sprt $SPRT)
summary plain-sprt "$wall"
# shellcheck disable=SC2086
wall=$(run adjudicated-sprt -sprt $SPRT $ADJ)
summary adjudicated-sprt "$wall"
echo
echo "journals and PGN in $OUT"
