#!/usr/bin/env bash
# RenLib reader fuzz, the long run: a million mutated and truncated library files (bit flips,
# byte changes, insertions, deletions, truncations of every sample in ../shared/testdata/renlib
# and of a built-in library with every payload kind) through the reader, in release mode.
#
# It runs the test `tests/it/renlib_fuzz.rs` (which `cargo test` runs with 3000 cases) with
# RENLIB_FUZZ_CASES cases. Each case checks: no panic; an accepted file writes back byte for
# byte, can be counted, dumped and merged; an error names an offset inside the file; the heap a
# read takes stays under 128 bytes per file byte + 64 KiB (a counting global allocator measures
# it). The test prints the time and the largest heap use per file byte; /usr/bin/time adds the
# process's peak memory.
#
# Environment: CASES (default 1000000), NO_BUILD=1 to skip the build.
set -euo pipefail
cd "$(dirname "$0")/.."

CASES=${CASES:-1000000}
if [ -z "${NO_BUILD:-}" ]; then
    cargo test --release --test it --no-run >&2
fi
RENLIB_FUZZ_CASES=$CASES /usr/bin/time -f "wall %e s, peak RSS %M KiB" \
    cargo test --release --test it renlib_fuzz:: -- --nocapture 2>&1 | grep -E "mutated|test result|wall|panicked|Fail"
