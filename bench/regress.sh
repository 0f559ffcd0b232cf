#!/usr/bin/env bash
# The per-move regression benchmark: the working tree's runner against the runner of REV (built in
# a scratch worktree), interleaved run by run, at concurrency 1, 2 and 64; optionally against
# c-gomoku-cli and the ping-pong floor too. Prints the median paired ratios and a verdict.
#
#   bench/regress.sh REV          e.g. bench/regress.sh main, bench/regress.sh d5c5b76
#
# Both runners play the same games: two `pbrain-random --first-empty` engines (each move the
# first empty point in reading order: instant, deterministic, 61 moves a game on 15x15
# freestyle), -journal off. Within each pair the order of the runs rotates (A B, B A, ...), so
# drift in the machine's load hits both alike. Ratios are new / other: below 1 is faster.
#
# Environment:
#   GAMES (1000), PAIRS (12), LEVELS ("1 2 64")
#   CGOMOKU=path/to/c-gomoku-cli  also pair against the predecessor (skipped when unset or absent;
#                                 its source builds with `make` in src/, see docs/design/BENCHMARKS.md)
#   PINGPONG=1                    also pair against examples/pingpong (the pipe ping-pong floor)
#   TOL (1.03)                    a median ratio above this against REV, with new slower in at
#                                 least 3 pairs of 4, is a regression
#   NO_BUILD=1                    use the binaries already built (the working tree's and REV's)
#   KEEP=1                        keep the raw measurements (printed path)
# The scratch worktree is ${TMPDIR:-/tmp}/gomoku-regress-SHA; REV is built with its own target
# directory, target/regress (copy target/release there once to skip rebuilding dependencies).
# Each run's own CPU is the runner process's user + system time, engines excluded (runstat.py).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

REV=${1:?usage: bench/regress.sh REV}
GAMES=${GAMES:-1000}
PAIRS=${PAIRS:-12}
LEVELS=${LEVELS:-"1 2 64"}
TOL=${TOL:-1.03}
. bench/lib.sh
# High concurrency needs about 14 descriptors a slot (the runner raises its soft limit itself).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

sha=$(git rev-parse --verify "$REV^{commit}")
short=$(git rev-parse --short "$sha")
scratch="${TMPDIR:-/tmp}/gomoku-regress-$short"
old_bin="$root/target/regress/gomoku-cli-$short"
if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release -p gomoku-cli -p pbrain-random --bins --example pingpong >&2
    if [ ! -x "$old_bin" ]; then
        if [ ! -d "$scratch" ]; then git worktree add --detach "$scratch" "$sha" >&2; fi
        (cd "$scratch" && cargo build --release --bin gomoku-cli --target-dir "$root/target/regress") >&2
        cp "$root/target/regress/release/gomoku-cli" "$old_bin"
        git worktree remove --force "$scratch" >&2
    fi
fi
R=$root/target/release
for f in "$R/gomoku-cli" "$R/pbrain-random" "$old_bin"; do
    [ -x "$f" ] || { echo "regress: $f is missing (run without NO_BUILD)" >&2; exit 1; }
done
ENG="$R/pbrain-random --first-empty"

parties="new old"
if [ -n "${CGOMOKU:-}" ] && [ -x "$CGOMOKU" ]; then
    parties="$parties c"
else
    echo "regress: c-gomoku-cli skipped (set CGOMOKU=path to its binary)" >&2
fi
if [ -n "${PINGPONG:-}" ]; then parties="$parties pp"; fi

tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "raw data in $tmp" >&2; fi
raw=$tmp/raw.txt # party conc pair wall_s cpu_s

# cmd PARTY CONC: the command line of one run, one word a line.
cmd() {
    local party=$1 conc=$2
    case $party in
    new | old)
        local bin=$R/gomoku-cli
        if [ "$party" = old ]; then bin=$old_bin; fi
        printf '%s\n' "$bin" -engine "cmd=$ENG" name=a -engine "cmd=$ENG" name=b \
            -games "$GAMES" -concurrency "$conc" -boardsize 15 -rule 0 -quiet -noprogress \
            -journal off
        ;;
    c)
        printf '%s\n' "$CGOMOKU" -engine "cmd=$ENG" name=a -engine "cmd=$ENG" name=b \
            -games "$GAMES" -concurrency "$conc" -boardsize 15 -rule 0
        ;;
    pp)
        printf '%s\n' "$R/examples/pingpong" --engine "$ENG" --games "$GAMES" \
            --concurrency "$conc" --boardsize 15 --drawafter 1000
        ;;
    esac
}

echo "regress: new = working tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes')), old = $short; $GAMES games a run, $PAIRS pairs; $(machine)"
set -f
for pair in $(seq 1 "$PAIRS"); do
    for conc in $LEVELS; do
        # Rotate the order within the pair, so neither party always runs first.
        order=$parties
        for _ in $(seq 1 $((pair % $(echo "$parties" | wc -w)))); do
            order="${order#* } ${order%% *}"
        done
        for party in $order; do
            mapfile -t c < <(cmd "$party" "$conc")
            echo "$party $conc $pair $(python3 bench/runstat.py "${c[@]}")" >>"$raw"
        done
    done
    echo "regress: pair $pair/$PAIRS done, load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
set +f

# ratios CONC OTHER COLUMN: the paired ratios new / OTHER, one a line (COLUMN 4 = wall, 5 = CPU).
ratios() {
    awk -v c="$1" -v o="$2" -v k="$3" '$2 == c { v[$1 " " $3] = $k } END {
        for (key in v) { split(key, p, " "); if (p[1] == "new" && (o " " p[2]) in v && v[o " " p[2]] > 0)
            print v[key] / v[o " " p[2]] } }' "$raw"
}
# ratio CONC OTHER COLUMN: their median.
ratio() { ratios "$@" | median; }
# slower CONC COLUMN: the share of pairs in which new took longer than old.
slower() { ratios "$1" old "$2" | awk '{ n++; s += ($1 > 1) } END { print n ? s / n : 0 }'; }
# per_game PARTY CONC COLUMN: the median of COLUMN over the party's runs, in µs per game.
per_game() {
    awk -v p="$1" -v c="$2" -v k="$3" -v g="$GAMES" '$1 == p && $2 == c { print $k * 1e6 / g }' "$raw" | stats
}

echo
echo "| conc | new wall µs/game | old wall µs/game | wall new/old | new own CPU µs/game | old own CPU µs/game | CPU new/old |$(
    for o in $parties; do case $o in c) printf ' wall new/c-gomoku-cli | c-gomoku-cli own CPU µs/game |' ;; pp) printf ' wall new/pingpong |' ;; esac; done)"
echo "|---|---|---|---|---|---|---|$(for o in $parties; do case $o in c) printf -- '---|---|' ;; pp) printf -- '---|' ;; esac; done)"
verdict=PASS
for conc in $LEVELS; do
    w=$(ratio "$conc" old 4)
    u=$(ratio "$conc" old 5)
    line="| $conc | $(per_game new "$conc" 4) | $(per_game old "$conc" 4) | $(printf %.3f "$w") | $(per_game new "$conc" 5) | $(per_game old "$conc" 5) | $(printf %.3f "$u") |"
    for o in $parties; do
        case $o in
        c) line="$line $(printf %.3f "$(ratio "$conc" c 4)") | $(per_game c "$conc" 5) |" ;;
        pp) line="$line $(printf %.3f "$(ratio "$conc" pp 4)") |" ;;
        esac
    done
    echo "$line"
    # A regression is a median ratio above TOL in at least three pairs of four: on a shared
    # machine one slow burst can move a median of a dozen pairs by 10 %, but rarely most pairs.
    sw=$(slower "$conc" 4)
    su=$(slower "$conc" 5)
    if awk -v w="$w" -v u="$u" -v sw="$sw" -v su="$su" -v t="$TOL" \
        'BEGIN { exit !((w > t && sw >= 0.75) || (u > t && su >= 0.75)) }'; then
        verdict="REGRESSION"
        echo "regress: concurrency $conc: new/old wall $w (slower in $sw of the pairs), CPU $u ($su) (tolerance $TOL)" >&2
    fi
done
echo
echo "regress: $verdict: new against $short at concurrency $LEVELS (no median paired wall or own-CPU ratio above $TOL with new slower in 3 pairs of 4), load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$verdict" = PASS ]
