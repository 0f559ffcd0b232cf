#!/usr/bin/env bash
# Load: many games at high concurrency with instant engines (pbrain-random, -drawafter 100).
#
# Checks that the run completes (no deadlock: a watchdog of TIMEOUT seconds), that the journal
# and the PGN hold exactly GAMES games (bench/check_run.py), that no engine is left behind, and
# reports the runner's peak RSS, descriptors and threads (bench/procwatch.py) and games per
# minute. Then, in a shell whose open-file limit is too low for CONC slots, that the runner
# refuses before the first game with a message naming the numbers (and a non-zero exit code).
# Environment: GAMES (20000), CONC (256), TIMEOUT (1800), NO_BUILD=1, KEEP=1.
# Last line: "load: ...".
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

GAMES=${GAMES:-20000}
CONC=${CONC:-256}
TIMEOUT=${TIMEOUT:-1800}
build_release
R=target/release
tmp=$(mktemp -d)
marker="--seed $((RANDOM + 200000))"
cleanup() { pkill -KILL -f -- "$marker" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT

cmd=("$R/gomoku-cli" -engine "cmd=$R/pbrain-random $marker" name=a
    -engine "cmd=$R/pbrain-random $marker" name=b -games "$GAMES" -concurrency "$CONC"
    -rule 0 -boardsize 15 -drawafter 100 -quiet -noprogress -journal "$tmp/j.jsonl" -pgn "$tmp/g.pgn")
echo "machine: $(machine); open files: soft $(ulimit -Sn), hard $(ulimit -Hn)" >&2
echo "load: $GAMES games at concurrency $CONC" >&2
timeout --signal=TERM "$TIMEOUT" python3 bench/procwatch.py --interval 0.2 -- "${cmd[@]}" \
    >"$tmp/watch.json" 2>"$tmp/err" || true
if [ ! -s "$tmp/watch.json" ]; then
    echo "load: FAIL: no result within ${TIMEOUT} s (deadlock?)"
    exit 1
fi
exit_code=$(json_field "$tmp/watch.json" exit)
wall=$(json_field "$tmp/watch.json" wall_s)
sleep 1
stray=$(pgrep -f -- "$marker" | wc -l || true)
check=$(python3 bench/check_run.py "$R/gomoku-cli" "$tmp" "$GAMES" || true)
peak=$(($(json_field "$tmp/watch.json" peak_rss_kb) / 1024))
fds=$(json_field "$tmp/watch.json" fds 1)
threads=$(json_field "$tmp/watch.json" threads_max)
echo "exit code $exit_code, wall $wall s ($(awk -v g="$GAMES" -v w="$wall" 'BEGIN { printf "%.0f", g * 60 / w }') games/min)"
echo "runner: peak RSS $peak MiB, at most $fds descriptors and $threads threads"
echo "outputs: $check"
echo "stray engine processes after exit: $stray"

# Too low a limit: refused before game 1, with the numbers.
low=$((CONC * 4))
refusal=$( (ulimit -n "$low" && "$R/gomoku-cli" -engine "cmd=$R/pbrain-random $marker" name=a \
    -engine "cmd=$R/pbrain-random $marker" name=b -games 10 -concurrency "$CONC" -quiet \
    -noprogress -journal "$tmp/low.jsonl" 2>&1 >/dev/null; echo "exit $?") | tail -2 | tr '\n' ' ')
echo "with a hard limit of $low open files: $refusal"
refused=no
if [[ $refusal != *"exit 0"* ]] && ! grep -q '"game"' "$tmp/low.jsonl" 2>/dev/null; then refused=yes; fi

ok=yes
[ "$exit_code" = 0 ] && [[ $check == ok:* ]] && [ "$stray" = 0 ] && [ $refused = yes ] || ok=no
echo "load: $([ $ok = yes ] && echo PASS || echo FAIL): $GAMES games at c$CONC in $wall s," \
    "peak RSS $peak MiB, max $fds fds, outputs ${check%%;*}, $stray stray, low limit refused: $refused"
[ $ok = yes ]
