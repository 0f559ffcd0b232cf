#!/usr/bin/env bash
# The fuzz campaign: every cargo-fuzz target in fuzz/ (or those named as arguments) for
# SECONDS_PER_TARGET seconds each, one after the other, one libFuzzer job, under `nice -n 19`.
#
#   bench/fuzz.sh                          # every target, 600 s each (80 minutes)
#   SECONDS_PER_TARGET=60 bench/fuzz.sh journal samples
#
# Each run starts from a scratch copy of the target's seed corpus (fuzz/corpus/TARGET), so the
# corpus in the repository stays small; what libFuzzer adds is kept in WORK_DIR for a later run
# (KEEP_CORPUS=1 starts from it instead of the seeds). Limits: an input running over 10 s is a
# finding (-timeout), so is one taking more than 2 GB (-rss_limit_mb). A finding is written to
# fuzz/artifacts/TARGET/ and the script exits with status 1 after the other targets ran.
#
# Prints per target the executions, executions per second, the final coverage (cov: edges,
# ft: features) and the findings, then one verdict line:
#   fuzz: 8 targets x 600 s, 0 crashes
#
# Environment: SECONDS_PER_TARGET (600), MAX_LEN (8192 bytes an input at most), WORK_DIR
# (/tmp/gomoku-fuzz: scratch corpora and full logs), KEEP_CORPUS=1, NO_BUILD=1 (skip the build).
#
# Tool versions the figures in README.md were measured with: cargo-fuzz 0.13.2,
# rustc 1.97.0-nightly (e50aa6fba 2026-05-19), libfuzzer-sys 0.4.13 (fuzz/Cargo.lock).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${SECONDS_PER_TARGET:-600}
MAX_LEN=${MAX_LEN:-8192}
WORK_DIR=${WORK_DIR:-/tmp/gomoku-fuzz}
ALL=(engine_line opening cli journal samples renlib lib_inputs judge)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")

if [ -z "${NO_BUILD:-}" ]; then
    (cd fuzz && nice -n 19 cargo +nightly fuzz build >&2)
fi
BIN=fuzz/target/x86_64-unknown-linux-gnu/release

crashes=0
found=()
printf '%-12s %8s %12s %8s %7s %8s %s\n' target seconds executions exec/s cov ft findings
for t in "${TARGETS[@]}"; do
    [ -x "$BIN/$t" ] || { echo "no fuzz target $t (have: ${ALL[*]})" >&2; exit 2; }
    corpus="$WORK_DIR/corpus/$t"
    if [ -z "${KEEP_CORPUS:-}" ] || [ ! -d "$corpus" ]; then
        rm -rf "$corpus"
        mkdir -p "$corpus"
        cp fuzz/corpus/"$t"/* "$corpus"/
    fi
    mkdir -p "fuzz/artifacts/$t" "$WORK_DIR/logs"
    log="$WORK_DIR/logs/$t.log"
    status=0
    nice -n 19 "$BIN/$t" "$corpus" \
        -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$MAX_LEN" -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    artifacts=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" || true)
    n=0
    if [ "$status" -ne 0 ]; then
        n=1
        crashes=$((crashes + 1))
        found+=("$t: ${artifacts:-no artifact written} (exit $status, log $log)")
    fi
    printf '%-12s %8s %12s %8s %7s %8s %s\n' "$t" "$SECONDS_PER_TARGET" "${execs:-?}" \
        "${rate:-?}" "${cov:-?}" "${ft:-?}" "$n"
done
for f in "${found[@]}"; do
    echo "finding: $f"
done
echo "fuzz: ${#TARGETS[@]} targets x $SECONDS_PER_TARGET s, $crashes crashes"
[ "$crashes" -eq 0 ]
