#!/usr/bin/env bash
# tune_convergence.sh - does `gomoku-cli tune` find a pbrain-scout weight's best value?
#
# Usage: bash bench/tune_convergence.sh            (release build; ~10-20 min on 2 cores)
#
# 1. The best value, found without SPSA: for each value V of PARAM in SWEEP, a match of scout
#    with PARAM=V (by --param) against scout with PARAM=BASE (its default), GAMES games in
#    colour-swapped pairs on the bundled openings; the value with the highest score is the best
#    (its Elo and error bar printed, so one sees how flat the top is).
# 2. The tuning: PARAM started at START (far from the best), ITERATIONS iterations of one game
#    pair, c_end=C_END, r_end=R_END; games and wall time printed, then the final value and its
#    distance to the best in units of c_end.
#
# BEST=V skips the sweep. Environment: PARAM (eval_four), BASE (60), SWEEP ("0 20 40 60 90 140 220 400"), GAMES (400),
# DEPTH (3), START (300), ITERATIONS (3000), C_END (20), R_END (0.002), MIN (0), MAX (400),
# CONCURRENCY (2), OUT (bench/out/tune), BIN (target/release).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$REPO/target/release}
PARAM=${PARAM:-eval_four}
BASE=${BASE:-60}
SWEEP=${SWEEP:-"0 20 40 60 90 140 220 400"}
GAMES=${GAMES:-400}
DEPTH=${DEPTH:-3}
START=${START:-300}
ITERATIONS=${ITERATIONS:-3000}
C_END=${C_END:-20}
R_END=${R_END:-0.002}
MIN=${MIN:-0}
MAX=${MAX:-400}
CONCURRENCY=${CONCURRENCY:-2}
OUT=${OUT:-$REPO/bench/out/tune}
OPENINGS="file=$REPO/openings/freestyle15.txt type=pos order=random srand=3"
mkdir -p "$OUT"
[ -x "$BIN/gomoku-cli" ] || { echo "build first: cargo build --release --workspace" >&2; exit 1; }

best=${BEST:-} ; best_score=-1
[ -n "$best" ] && SWEEP= && echo "best given: $PARAM=$best (no sweep)"
[ -n "$SWEEP" ] && echo "# $PARAM: sweep against $PARAM=$BASE, $GAMES games each, scout depth $DEPTH"
for v in $SWEEP; do
  "$BIN/gomoku-cli" -engine "cmd=$BIN/pbrain-scout --param $PARAM=$v" name=v$v \
    -engine "cmd=$BIN/pbrain-scout --param $PARAM=$BASE" name=base -each depth=$DEPTH tc=0/60 \
    -rule 0 -boardsize 15 -games "$GAMES" -repeat -openings $OPENINGS -concurrency "$CONCURRENCY" \
    -journal "$OUT/sweep-$v.jsonl" -quiet -noprogress > "$OUT/sweep-$v.out" 2>&1
  line=$(grep -m1 '^Games:' "$OUT/sweep-$v.out" | tail -1)
  elo=$(grep '^Elo:' "$OUT/sweep-$v.out" | tail -1)
  score=$(grep '^Games:' "$OUT/sweep-$v.out" | tail -1 | sed 's/.*(\([0-9.]*\) %).*/\1/')
  echo "$PARAM=$v: $score %  $elo"
  if awk "BEGIN{exit !($score > $best_score)}"; then best=$v; best_score=$score; fi
done
[ -n "$SWEEP" ] && echo "best by the sweep: $PARAM=$best ($best_score %)"

printf '%s, int, %s, %s, %s, %s, %s\n' "$PARAM" "$START" "$MIN" "$MAX" "$C_END" "$R_END" > "$OUT/params.txt"
echo "# tune from $START: $ITERATIONS iterations of one pair, c_end $C_END, r_end $R_END"
t0=$(date +%s.%N)
"$BIN/gomoku-cli" tune -engine "cmd=$BIN/pbrain-scout" depth=$DEPTH tc=0/60 -params "$OUT/params.txt" \
  -iterations "$ITERATIONS" -srand 1 -rule 0 -boardsize 15 -openings $OPENINGS \
  -concurrency "$CONCURRENCY" -journal "$OUT/tune.jsonl" -quiet -noprogress > "$OUT/tune.out" 2>&1
t1=$(date +%s.%N)
final=$(tail -1 "$OUT/tune.out" | sed 's/.*, //')
grep '^Tune:' "$OUT/tune.out" | tail -4
awk -v f="$final" -v b="$best" -v c="$C_END" -v t0="$t0" -v t1="$t1" -v n="$ITERATIONS" 'BEGIN{
  d=f-b; if (d<0) d=-d;
  printf "tuned %s (best %s): %.2f c_end away; %d games in %.1f s\n", f, b, d/c, 2*n, t1-t0 }'
