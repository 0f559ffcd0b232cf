#!/usr/bin/env bash
# Runner overhead per move against a minimal pipe ping-pong baseline (examples/pingpong.rs), both
# measured in the same run, interleaved repetition by repetition so machine noise hits both alike.
#
# Modes, each at every concurrency:
#   runner   gomoku-cli with -journal only (the journal is how its moves are counted)
#   outputs  gomoku-cli with -journal -pgn -sgf -msg -log (every output it has)
# Both engines are pbrain-random with fixed seeds; at concurrency 1 the baseline sends the same
# commands as the runner, so the seeded engines play the very same games (the script checks the
# move counts agree).
#
# Environment: GAMES (default 1000), DRAWAFTER (100), REPS (10), CONCURRENCY ("1 2"),
# NO_BUILD=1 to skip `cargo build`, KEEP=1 to keep the raw measurements, COMPARE=PATH to add a
# mode "compare": another gomoku-cli binary (e.g. an older build) run like "runner",
# CALLGRIND=1 to add instructions per move in user space (runner process vs baseline driver,
# engines excluded) counted by valgrind: slow, but free of the machine's noise.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${GAMES:-1000}
DRAWAFTER=${DRAWAFTER:-100}
REPS=${REPS:-10}
CONCURRENCY=${CONCURRENCY:-"1 2"}

. bench/lib.sh
build_release
R=target/release
A="$R/pbrain-random --seed 1"
B="$R/pbrain-random --seed 2"
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "raw data in $tmp" >&2; fi
raw="$tmp/raw.txt" # mode conc rep moves wall_s cpu_s

now() { date +%s.%N; }

# run MODE CONC REP: one measured run; appends a line to $raw.
run() {
    local mode=$1 conc=$2 rep=$3 moves t0 t1 cpu
    local dir="$tmp/$mode-$conc-$rep"
    mkdir -p "$dir"
    local cmd
    case $mode in
    baseline)
        cmd=("$R/examples/pingpong" --black "$A" --white "$B" --games "$GAMES"
            --concurrency "$conc" --boardsize 15 --drawafter "$DRAWAFTER")
        ;;
    runner | outputs | compare)
        local bin="$R/gomoku-cli"
        if [ "$mode" = compare ]; then bin=$COMPARE; fi
        cmd=("$bin" -engine "cmd=$A" name=a -engine "cmd=$B" name=b -games "$GAMES"
            -concurrency "$conc" -boardsize 15 -drawafter "$DRAWAFTER" -quiet -noprogress
            -journal "$dir/journal.jsonl")
        if [ "$mode" = outputs ]; then
            cmd+=(-pgn "$dir/games.pgn" -sgf "$dir/games.sgf" -msg "$dir/games.msg"
                -log -logdir "$dir" -sample format=bin_lz4 "file=$dir/samples.bin.lz4")
        fi
        ;;
    esac
    t0=$(now)
    /usr/bin/time -f "%U %S" -o "$dir/time" "${cmd[@]}" >"$dir/out" 2>"$dir/err" || {
        echo "failed: ${cmd[*]}" >&2
        cat "$dir/err" >&2
        exit 1
    }
    t1=$(now)
    cpu=$(awk '{print $1 + $2}' "$dir/time")
    if [ "$mode" = baseline ]; then
        moves=$(sed -n 's/.*moves=\([0-9]*\).*/\1/p' "$dir/out")
    else
        moves=$("$R/examples/pingpong" --count-moves "$dir/journal.jsonl")
    fi
    echo "$mode $conc $rep $moves $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b - a}') $cpu" >>"$raw"
    # Keep only the numbers: the records of 2000 games add up.
    rm -rf "$dir"
}

for rep in $(seq 1 "$REPS"); do
    for conc in $CONCURRENCY; do
        for mode in baseline runner outputs${COMPARE:+ compare}; do
            run "$mode" "$conc" "$rep"
        done
    done
    echo "repetition $rep of $REPS done" >&2
done

# At concurrency 1 the seeded games are identical: the move counts must agree.
awk '$2 == 1 && $1 == "baseline" { b[$3] = $4 } $2 == 1 && $1 != "baseline" { r[$3 " " $1] = $4 }
    END { for (k in r) { split(k, p, " "); if (r[k] != b[p[1]])
        printf "warning: %s played %s moves at concurrency 1, the baseline %s\n", p[2], r[k], b[p[1]] > "/dev/stderr" } }' "$raw"

# per_move MODE CONC FIELD: µs per move (FIELD 5 = wall, 6 = CPU) of every repetition.
per_move() { awk -v m="$1" -v c="$2" -v f="$3" '$1 == m && $2 == c { printf "%.3f\n", $f * 1e6 / $4 }' "$raw"; }
# ratio MODE CONC FIELD: median of the per-repetition ratios runner/baseline (the two ran back
# to back, so they shared the machine's mood), and the ratio of the best (minimum) figures.
ratio() {
    awk -v m="$1" -v c="$2" -v f="$3" '$2 == c && $1 == "baseline" { b[$3] = $f / $4 }
        $2 == c && $1 == m { r[$3] = $f / $4 }
        END { for (k in r) printf "%.4f\n", r[k] / b[k] }' "$raw" | sort -g |
        awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
    local best_b best_r
    best_b=$(per_move baseline "$2" "$3" | sort -g | head -1)
    best_r=$(per_move "$1" "$2" "$3" | sort -g | head -1)
    awk -v a="$best_r" -v b="$best_b" 'BEGIN { printf " / %.2f", a / b }'
}

modes="runner outputs${COMPARE:+ compare}"
echo
echo "games=$GAMES drawafter=$DRAWAFTER reps=$REPS; us/move as median [min-max] over the repetitions;"
echo "ratio = median of the paired per-repetition ratios / ratio of the minimums"
for field in 5 6; do
    if [ "$field" = 5 ]; then
        echo "wall time (whole command, start-up included) per move:"
    else
        echo "CPU time (user+sys of the command and its engines) per move:"
    fi
    printf "  %-8s %4s  %-24s %-24s %s\n" mode conc "baseline us/move" "runner us/move" "ratio (median / min)"
    for mode in $modes; do
        for conc in $CONCURRENCY; do
            printf "  %-8s %4s  %-24s %-24s %s\n" "$mode" "$conc" \
                "$(per_move baseline "$conc" "$field" | stats)" \
                "$(per_move "$mode" "$conc" "$field" | stats)" "$(ratio "$mode" "$conc" "$field")"
        done
    done
done

if [ -n "${CALLGRIND:-}" ]; then
    cg_games=200
    echo
    echo "user-space instructions per move (valgrind callgrind, $cg_games games, concurrency 1, engines not counted):"
    ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
    base_ir=$(ir "$R/examples/pingpong" --black "$A" --white "$B" --games $cg_games --boardsize 15 \
        --drawafter "$DRAWAFTER")
    base_moves=$("$R/examples/pingpong" --black "$A" --white "$B" --games $cg_games --boardsize 15 \
        --drawafter "$DRAWAFTER" | sed -n 's/.*moves=\([0-9]*\).*/\1/p')
    for bin in "$R/gomoku-cli" ${COMPARE:+"$COMPARE"}; do
        rm -f "$tmp/cg.jsonl"
        run_ir=$(ir "$bin" -engine "cmd=$A" name=a -engine "cmd=$B" name=b -games $cg_games \
            -boardsize 15 -drawafter "$DRAWAFTER" -quiet -noprogress -journal "$tmp/cg.jsonl")
        run_moves=$("$R/examples/pingpong" --count-moves "$tmp/cg.jsonl")
        awk -v b="$bin" -v bi="$base_ir" -v bm="$base_moves" -v ri="$run_ir" -v rm="$run_moves" \
            'BEGIN { printf "  %-40s %8.0f instr/move (baseline driver %.0f, ratio %.1f)\n", b, ri / rm, bi / bm, (ri / rm) / (bi / bm) }'
    done
fi
