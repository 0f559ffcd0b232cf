#!/usr/bin/env bash
# tune_overhead.sh - the runner's cost per game in `tune` against a match of the same games.
#
# Usage: bash bench/tune_overhead.sh [PAIRS]   (release build)
# PAIRS (default 3) alternating runs of: a match of pbrain-random against itself, GAMES games
# (-repeat, -concurrency 2), and `tune` of the same engine for GAMES/2 iterations (its two
# parameters go by INFO, which pbrain-random ignores: the games are alike). Prints the runner's
# own CPU time (user+sys of gomoku-cli, engines excluded: getrusage of the process, not its
# children) per game for each run, and the ratio tune/match.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$REPO/target/release}
PAIRS=${1:-3}
GAMES=${GAMES:-4000}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
printf 'a, int, 50, 0, 100, 5, 0.002\nb, float, 1.5, 0, 3, 0.2, 0.002\n' > "$OUT/p.txt"
common=(-rule 0 -boardsize 15 -concurrency 2 -quiet -noprogress -ratinginterval 0)
cpu() { # the runner's own CPU seconds (self, not children) of "$@"
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = __import__("os").wait4(p.pid, 0)
print(f"{ru.ru_utime + ru.ru_stime:.3f} {time.time() - t:.2f}")
PY
}
for i in $(seq "$PAIRS"); do
  m=$(cpu "$BIN/gomoku-cli" -engine cmd="$BIN/pbrain-random" -engine cmd="$BIN/pbrain-random" \
      -games "$GAMES" -repeat "${common[@]}" -journal "$OUT/m$i.jsonl")
  t=$(cpu "$BIN/gomoku-cli" tune -engine cmd="$BIN/pbrain-random" -params "$OUT/p.txt" \
      -iterations $((GAMES / 2)) "${common[@]}" -journal "$OUT/t$i.jsonl")
  awk -v m="$m" -v t="$t" -v g="$GAMES" 'BEGIN{split(m,a," "); split(t,b," ");
    printf "pair: match %.1f us/game (%.1f s), tune %.1f us/game (%.1f s), ratio %.2f\n",
      a[1]/g*1e6, a[2], b[1]/g*1e6, b[2], b[1]/a[1]}'
done
