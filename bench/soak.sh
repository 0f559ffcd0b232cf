#!/usr/bin/env bash
# Soak: a long run mixing healthy and faulty engines, every output on, the runner watched.
#
# Six engines in a round robin, GAMES games in all at concurrency CONC: two healthy pbrain-random,
# and pbrain-faulty crashing at its 20th move, hanging at its 25th (a turn limit of 0.5 s and a
# tolerance of 0.1 s end those games), playing an illegal move at its 15th, and answering
# garbage at its 30th while leaving a child process behind. Checks:
#  - the run ends normally and bench/check_run.py passes: exactly GAMES games in the journal and
#    every record (PGN, SGF, messages, samples, .psq) byte for byte what `export` rebuilds;
#  - the runner's memory is flat after warm-up: the median RSS of the last quarter of the run is
#    within 10 % (or 1 MiB) of the second quarter's (sampled every 0.5 s by bench/procwatch.py);
#  - its open descriptors do not grow (the last quarter's median within 2 of the second's);
#  - no engine process (nor a child of one) is left once the runner has exited.
# Environment: GAMES (10000), CONC (16), NO_REPORT=1, NO_BUILD=1, KEEP=1. Last line: "soak: ...".
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

GAMES=${GAMES:-10000}
CONC=${CONC:-16}
build_release
R=target/release
tmp=$(mktemp -d)
# A marker on every engine's command line finds them (and their children) afterwards.
marker="--seed $((RANDOM + 100000))"
cleanup() { pkill -KILL -f -- "$marker" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT
[ -z "${KEEP:-}" ] || echo "raw data in $tmp" >&2

# Round robin of 6 engines: 15 pairs; -games is per pair, so round GAMES up to a multiple of 15.
per_pair=$(((GAMES + 14) / 15))
total=$((per_pair * 15))
cmd=("$R/gomoku-cli"
    -engine "cmd=$R/pbrain-random $marker" name=random1
    -engine "cmd=$R/pbrain-random $marker" name=random2
    -engine "cmd=$R/pbrain-faulty $marker --crash-at 20" name=crasher
    -engine "cmd=$R/pbrain-faulty $marker --hang-at 25" name=hanger
    -engine "cmd=$R/pbrain-faulty $marker --illegal-at 15" name=illegal
    -engine "cmd=$R/pbrain-faulty $marker --garbage-at 30 --spawn-child" name=garbage
    -each tc=0/0.5 tolerance=0.1 -rule 0 -boardsize 15 -drawafter 100
    -games "$per_pair" -concurrency "$CONC" -quiet -noprogress
    -journal "$tmp/j.jsonl" -pgn "$tmp/g.pgn" -sgf "$tmp/g.sgf" -msg "$tmp/g.msg"
    -sample format=bin_lz4 "file=$tmp/s.bin.lz4" -psq "$tmp/psq")
# NO_REPORT=1 leaves the live report out (to tell its memory from the rest of the runner's).
if [ -z "${NO_REPORT:-}" ]; then cmd+=(-report "$tmp/r.html"); fi
echo "machine: $(machine)" >&2
echo "soak: $total games at concurrency $CONC" >&2
python3 bench/procwatch.py --interval 0.5 --series "$tmp/series.txt" -- "${cmd[@]}" \
    >"$tmp/watch.json" 2>"$tmp/err"
exit_code=$(json_field "$tmp/watch.json" exit)
wall=$(json_field "$tmp/watch.json" wall_s)
sleep 1
stray=$(pgrep -f -- "$marker" | wc -l || true)
check=$(python3 bench/check_run.py "$R/gomoku-cli" "$tmp" "$total" || true)

# Quarters of the RSS and descriptor series (t rss_kb fds threads): the median RSS of a quarter is
# what the runner holds; the live report's rebuilds (every -ratinginterval games, at most a tenth
# of the time) add a transient peak that grows with the games a page holds, so the maximum is
# shown beside it but not judged.
quarter() { awk -v a="$1" -v b="$2" -v f="$3" '{ v[NR] = $f } END {
    lo = int(a * NR) + 1; hi = int(b * NR); for (i = lo; i <= hi; i++) print v[i] }' "$tmp/series.txt"; }
q2_rss=$(quarter 0.25 0.5 2 | median)
q4_rss=$(quarter 0.75 1 2 | median)
q2_max=$(quarter 0.25 0.5 2 | sort -g | tail -1)
q4_max=$(quarter 0.75 1 2 | sort -g | tail -1)
# Descriptors come and go as crashed engines are restarted: compare medians (a leak of one per
# crash would add hundreds), show the maxima.
q2_fds=$(quarter 0.25 0.5 3 | median)
q4_fds=$(quarter 0.75 1 3 | median)
q2_fds_max=$(quarter 0.25 0.5 3 | sort -g | tail -1)
q4_fds_max=$(quarter 0.75 1 3 | sort -g | tail -1)
q2_fds=${q2_fds%.*} q4_fds=${q4_fds%.*}
q2_rss=${q2_rss%.*} q4_rss=${q4_rss%.*}
flat=$(awk -v a="$q2_rss" -v b="$q4_rss" 'BEGIN { d = b - a; print (d <= a * 0.1 || d <= 1024) ? "yes" : "no" }')
games_per_min=$(awk -v g="$total" -v w="$wall" 'BEGIN { printf "%.0f", g * 60 / w }')

echo "exit code $exit_code, wall ${wall} s ($games_per_min games/min)"
echo "terminations: $(python3 -c 'import json,sys,collections
c = collections.Counter(json.loads(l).get("termination") for l in open(sys.argv[1]))
del c[None]; print(", ".join(f"{k} {v}" for k, v in c.most_common()))' "$tmp/j.jsonl")"
echo "runner RSS: median $((q2_rss / 1024)) MiB in the second quarter, $((q4_rss / 1024)) MiB in the last (flat: $flat);" \
    "maximum $((q2_max / 1024)) and $((q4_max / 1024)) MiB (report rebuilds), peak $(($(json_field "$tmp/watch.json" peak_rss_kb) / 1024)) MiB"
echo "runner descriptors: median $q2_fds in the second quarter, $q4_fds in the last (maximum $q2_fds_max and $q4_fds_max)"
echo "outputs: $check"
echo "stray engine processes after exit: $stray"
ok=yes
[ "$exit_code" = 0 ] && [ "$flat" = yes ] && [ "$q4_fds" -le $((q2_fds + 2)) ] && [ "$stray" = 0 ] &&
    [[ $check == ok:* ]] || ok=no
echo "soak: $([ $ok = yes ] && echo PASS || echo FAIL): $total games at c$CONC in ${wall} s, outputs ${check%%;*}," \
    "RSS $((q2_rss / 1024))->$((q4_rss / 1024)) MiB, fds $q2_fds->$q4_fds, $stray stray processes"
[ $ok = yes ]
