#!/usr/bin/env bash
# The runner at scale against the pipe ping-pong baseline (examples/pingpong.rs), measured in the
# same run with the same instant engines (pbrain-random, fixed seeds, -drawafter 100):
#
#  1. overhead: wall time per move at each concurrency of CONCURRENCY, runner and baseline
#     back to back in every repetition; the runner's own CPU time per move (its process only,
#     sampled from /proc by bench/procwatch.py, engines excluded) and games per minute.
#     Aims: <= 1.15x the baseline at concurrency 1, <= 1.3x at 2 and above; runner CPU < 20 us.
#  2. memory and throughput: the runner's peak RSS (VmHWM) at each concurrency of MEMORY_CONC
#     with max(2000, 4 x concurrency) games, the bytes per game slot, wall time and games per
#     minute beside the baseline's. Aims: < 16 MiB at 256, < 64 MiB at 1024.
#  3. the predecessor (c-gomoku-cli) at the same concurrencies when PREDECESSOR=path/to/binary
#     is given; skipped otherwise (it cannot be built from this repository).
#
# Environment: GAMES (1000), REPS (5), CONCURRENCY ("1 2 16 64"), MEMORY_CONC ("1 64 256 1024"),
# PREDECESSOR, NO_BUILD=1, KEEP=1 (keep the raw figures).
# Prints a table per part and a last line "scale: ..." with the verdict against the aims.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

GAMES=${GAMES:-1000}
REPS=${REPS:-5}
CONCURRENCY=${CONCURRENCY:-"1 2 16 64"}
MEMORY_CONC=${MEMORY_CONC:-"1 64 256 1024"}
build_release
R=target/release
A="$R/pbrain-random --seed 1"
B="$R/pbrain-random --seed 2"
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "raw data in $tmp" >&2; fi
raw="$tmp/raw.txt" # part mode conc rep games moves wall_s self_cpu_s peak_rss_kb threads_max fds_max

# The runner needs 16 descriptors a slot (it raises its soft limit itself, up to the hard one).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# baseline PART CONC REP GAMES
baseline() {
    local out
    out=$("$R/examples/pingpong" --black "$A" --white "$B" --games "$4" --concurrency "$2" \
        --boardsize 15 --drawafter 100)
    echo "$1 baseline $2 $3 $4 $(sed -n 's/.*moves=\([0-9]*\) wall_s=\([0-9.]*\).*/\1 \2/p' <<<"$out") 0 0 0 0" >>"$raw"
}

# runner PART MODE CONC REP GAMES: gomoku-cli (MODE runner) or the predecessor (MODE predecessor).
runner() {
    local dir="$tmp/$1-$2-$3-$4" bin=$R/gomoku-cli moves
    mkdir -p "$dir"
    if [ "$2" = predecessor ]; then bin=$PREDECESSOR; fi
    local cmd=("$bin" -engine "cmd=$A" name=a -engine "cmd=$B" name=b -games "$5"
        -concurrency "$3" -boardsize 15 -drawafter 100)
    if [ "$2" = predecessor ]; then
        cmd+=(-pgn "$dir/games.pgn")
    else
        cmd+=(-quiet -noprogress -journal "$dir/journal.jsonl")
    fi
    python3 bench/procwatch.py -- "${cmd[@]}" >"$dir/watch.json" 2>"$dir/err" </dev/null
    if [ "$(json_field "$dir/watch.json" exit)" != 0 ]; then
        echo "failed: ${cmd[*]}" >&2
        cat "$dir/err" >&2
        exit 1
    fi
    if [ "$2" = predecessor ]; then
        # PGN move text: one "N. x y" pair per two moves is enough for a per-move figure.
        moves=$(grep -o '[a-o][0-9]\+' "$dir/games.pgn" | wc -l)
    else
        moves=$("$R/examples/pingpong" --count-moves "$dir/journal.jsonl")
    fi
    echo "$1 $2 $3 $4 $5 $moves $(for k in wall_s self_cpu_s peak_rss_kb threads_max; do
        json_field "$dir/watch.json" $k; done | tr '\n' ' ') $(json_field "$dir/watch.json" fds 1)" >>"$raw"
    rm -rf "$dir"
}

modes="runner${PREDECESSOR:+ predecessor}"
if [ -n "${PREDECESSOR:-}" ] && [ ! -x "$PREDECESSOR" ]; then
    echo "PREDECESSOR=$PREDECESSOR is not an executable" >&2
    exit 2
fi

for rep in $(seq 1 "$REPS"); do
    for conc in $CONCURRENCY; do
        baseline overhead "$conc" "$rep" "$GAMES"
        for mode in $modes; do runner overhead "$mode" "$conc" "$rep" "$GAMES"; done
    done
    echo "overhead: repetition $rep of $REPS done" >&2
done
for conc in $MEMORY_CONC; do
    games=$((conc * 4 > 2000 ? conc * 4 : 2000))
    baseline memory "$conc" 1 "$games"
    for mode in $modes; do runner memory "$mode" "$conc" 1 "$games"; done
    echo "memory: concurrency $conc done" >&2
done

# col PART MODE CONC EXPR: EXPR of the raw columns (g games, m moves, w wall, c cpu, r rss) per rep.
col() {
    awk -v p="$1" -v md="$2" -v c="$3" -v e="$4" '$1 == p && $2 == md && $3 == c {
        g = $5; m = $6; w = $7; cpu = $8; r = $9
        if (e == "wall_us") print w * 1e6 / m; else if (e == "cpu_us") print cpu * 1e6 / m
        else if (e == "gpm") print g * 60 / w; else if (e == "rss_mib") print r / 1024
        else if (e == "wall") print w; else if (e == "threads") print $10; else if (e == "fds") print $11 }' "$raw"
}
# ratio PART MODE CONC: median over repetitions of runner wall / baseline wall (paired).
ratio() {
    awk -v p="$1" -v md="$2" -v c="$3" '$1 == p && $3 == c && $2 == "baseline" { b[$4] = $7 / $6 }
        $1 == p && $3 == c && $2 == md { r[$4] = $7 / $6 }
        END { for (k in r) print r[k] / b[k] }' "$raw" | median
}

echo
echo "machine: $(machine)"
echo "1. overhead: $GAMES games a run, $REPS repetitions; median [min-max] over the repetitions"
printf "  %-11s %4s  %-22s %-22s %-7s %-20s %s\n" mode conc "baseline wall us/move" "wall us/move" ratio "own CPU us/move" "games/min"
verdict=""
for mode in $modes; do
    for conc in $CONCURRENCY; do
        r=$(ratio overhead "$mode" "$conc")
        cpu=$(col overhead "$mode" "$conc" cpu_us | median)
        printf "  %-11s %4s  %-22s %-22s %-7.2f %-20s %.0f\n" "$mode" "$conc" \
            "$(col overhead baseline "$conc" wall_us | stats)" "$(col overhead "$mode" "$conc" wall_us | stats)" \
            "$r" "$(col overhead "$mode" "$conc" cpu_us | stats)" "$(col overhead "$mode" "$conc" gpm | median)"
        if [ "$mode" = runner ]; then
            verdict+=$(awk -v c="$conc" -v r="$r" -v u="$cpu" 'BEGIN { aim = c == 1 ? 1.15 : 1.3
                o1 = (r <= aim) ? "" : "(over " aim ")"; o2 = (u < 20) ? "" : "(over 20)"
                printf "c%s %.2fx%s %.1fus%s, ", c, r, o1, u, o2 }')
        fi
    done
done
echo "2. memory and throughput: max(2000, 4 x concurrency) games"
printf "  %-11s %4s %6s  %-10s %-12s %-8s %-8s %-14s %s\n" mode conc games "peak MiB" "KiB/slot" threads fds "wall s (base)" "games/min (base)"
rss1=$(col memory runner "${MEMORY_CONC%% *}" rss_mib)
for mode in $modes; do
    for conc in $MEMORY_CONC; do
        rss=$(col memory "$mode" "$conc" rss_mib)
        printf "  %-11s %4s %6s  %-10.1f %-12s %-8s %-8s %-14s %.0f (%.0f)\n" "$mode" "$conc" \
            "$(awk -v c="$conc" 'BEGIN { print (c * 4 > 2000) ? c * 4 : 2000 }')" "$rss" \
            "$(awk -v a="$rss" -v b="$rss1" -v c="$conc" 'BEGIN { if (c > 1) printf "%.1f", (a - b) * 1024 / (c - 1); else print "-" }')" \
            "$(col memory "$mode" "$conc" threads)" "$(col memory "$mode" "$conc" fds)" \
            "$(printf "%.2f (%.2f)" "$(col memory "$mode" "$conc" wall)" "$(col memory baseline "$conc" wall)")" \
            "$(col memory "$mode" "$conc" gpm)" "$(col memory baseline "$conc" gpm)"
        if [ "$mode" = runner ]; then
            verdict+=$(awk -v c="$conc" -v r="$rss" 'BEGIN { aim = c >= 1024 ? 64 : c >= 256 ? 16 : 0
                over = (aim && r >= aim) ? "(over " aim ")" : ""
                printf "%.1f MiB at c%s%s, ", r, c, over }')
        fi
    done
done
if [ -z "${PREDECESSOR:-}" ]; then
    echo "3. predecessor: skipped (PREDECESSOR=path/to/c-gomoku-cli to compare)"
fi
echo "scale: ${verdict%, }; $(grep -o "(over" <<<"$verdict" | wc -l) figure(s) over their aim"
