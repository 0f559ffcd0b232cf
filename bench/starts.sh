#!/usr/bin/env bash
# Engine starts at high concurrency (issue 19, item 17): the runner against the ping-pong
# baseline (examples/pingpong.rs) with the same instant engines (pbrain-random --seed 1/2,
# -drawafter 100, 15x15), max(2000, 4 x conc) games a run, so that every slot starts its two
# engines and then reuses them. Runner and baseline alternate in every repetition; the runner's
# peak RSS and own CPU come from bench/procwatch.py.
#
# Environment: CONC ("256 1024"), REPS (5), NO_BUILD=1.
# Prints one line per run and, per concurrency, the paired ratios, their median and the median
# peak RSS. Aims: <= 1.1x at 256, <= 1.2x at 1024, RSS at 1024 <= 24.5 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

CONC=${CONC:-"256 1024"}
REPS=${REPS:-5}
if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release -p gomoku-cli -p pbrain-random --bins --example pingpong >&2
fi
R=target/release
A="$R/pbrain-random --seed 1"
B="$R/pbrain-random --seed 2"
# About 14 descriptors a slot (the runner raises its soft limit itself, up to the hard one).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

for rep in $(seq 1 "$REPS"); do
    for c in $CONC; do
        g=$((c * 4 > 2000 ? c * 4 : 2000))
        run=$(python3 bench/procwatch.py --interval 0.05 -- "$R/gomoku-cli" -engine "cmd=$A" name=a \
            -engine "cmd=$B" name=b -games "$g" -concurrency "$c" -boardsize 15 -drawafter 100 \
            -quiet -noprogress -journal off 2>/dev/null)
        start=$(date +%s.%N)
        "$R/examples/pingpong" --black "$A" --white "$B" --games "$g" --concurrency "$c" \
            --boardsize 15 --drawafter 100 >/dev/null
        base=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
        line="$c $rep $(json_field <(echo "$run") wall_s) $base $(json_field <(echo "$run") peak_rss_kb) $(json_field <(echo "$run") self_cpu_s)"
        echo "conc wall_s baseline_s rss_kb cpu_s: $line" >&2
        echo "$line" >>"$raw"
    done
done
echo "machine: $(machine)"
for c in $CONC; do
    awk -v c="$c" '$1 == c { printf "%.2f\n", $3 / $4 }' "$raw" >"$raw.r"
    awk -v c="$c" '$1 == c { printf "%.1f\n", $5 / 1024 }' "$raw" >"$raw.m"
    echo "conc $c: runner/baseline $(paste -sd' ' "$raw.r"), median $(median <"$raw.r"); peak RSS median $(median <"$raw.m") MiB"
    rm -f "$raw.r" "$raw.m"
done
