#!/usr/bin/env bash
# Memory against the -games cap: the runner plays the very same games (pbrain-random seeded 1
# against seed 2, one slot, until an SPRT with wide bounds decides at game 3) under each cap in
# CAPS, REPS times; prints the median peak RSS (/usr/bin/time's %M: the largest resident set of
# the runner and its engines, the runner by far) and the games played.
#   bench/games_cap.sh                               (builds release binaries first)
#   NO_BUILD=1 R=target/debug REPS=9 bench/games_cap.sh
#   COMPARE=/path/to/older/gomoku-cli COMPARE_CAPS="10 1000000 100000000" bench/games_cap.sh
# COMPARE runs another build of the runner the same way, under a 4 GiB address-space limit: a
# build that lists every game number up front needs 8 bytes a game (32 GiB for 2^32), and the
# limit makes it fail instead of pushing the machine into the kernel's OOM killer.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
CAPS=${CAPS:-"10 4294967296 18446744073709551615"}
COMPARE_CAPS=${COMPARE_CAPS:-"10 1000000 100000000"}
REPS=${REPS:-5}
R=${R:-target/release}
build_release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(machine)"

# one RUNNER CAP LIMIT_KIB: "peak_kib games" of one run (games "none" when it failed).
one() {
    (
        [ "$3" = none ] || ulimit -v "$3"
        /usr/bin/time -f "%M" -o "$tmp/time" "$1" \
            -engine "cmd=$R/pbrain-random --seed 1" name=A -engine "cmd=$R/pbrain-random --seed 2" name=B \
            -games "$2" -concurrency 1 -sprt elo0=0 elo1=400 alpha=0.2 beta=0.2 -quiet -noprogress \
            >"$tmp/out" 2>"$tmp/err"
    ) || true
    local games
    games=$(sed -n 's/^Finished \([0-9]*\) of .*/\1/p' "$tmp/out")
    echo "$(tail -1 "$tmp/time") ${games:-none}"
}

# measure LABEL RUNNER LIMIT_KIB CAPS...: one line per cap.
measure() {
    local label=$1 runner=$2 limit=$3
    shift 3
    for cap in "$@"; do
        : >"$tmp/peaks"
        local peak games=none
        for _ in $(seq "$REPS"); do
            read -r peak games < <(one "$runner" "$cap" "$limit")
            echo "$peak" >>"$tmp/peaks"
        done
        printf "%-8s -games %-20s peak RSS %s KiB (median [min-max] of %s), games played %s\n" \
            "$label" "$cap" "$(stats <"$tmp/peaks")" "$REPS" "$games"
    done
}

measure current "$R/gomoku-cli" none $CAPS
if [ -n "${COMPARE:-}" ]; then
    measure compare "$COMPARE" 4194304 $COMPARE_CAPS
fi
