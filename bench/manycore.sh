#!/usr/bin/env bash
# The many-core side by side (issue 37): three runners play the same matches, interleaved,
# at concurrency 1 to 1024, measured by /work/shared/tools/sidebyside (sidebyside.py and
# runmeasure.c): wall, total CPU, the runner's own CPU, its threads and peak RSS, and the paired
# wall ratios of the new runner against the other two.
#
#   bench/manycore.sh DIR [OUTDIR]
#
# DIR holds (x86-64 release builds, stripped):
#   gomoku-cli-new   the runner under test, as shipped (`cargo dist`: static)
#   gomoku-cli-base  the landing before it
#   c-gomoku-cli     the predecessor                pbrain-random    the instant engine
#   sidebyside.py, runmeasure.c (the harness), and runmeasure (built from runmeasure.c; without
#   it the harness builds it with cc)
#   pingpong (optional: examples/pingpong, statically linked) the floor, a fifth runner: a thread
#            per game relaying the same bytes between the two engines over blocking pipes and
#            nothing else (no referee, clock or records), the CPUs left to the kernel. No
#            unpinned runner of this design can beat it, so where its wall is above 0.8x
#            c-gomoku-cli's, the issue's 0.8x is out of reach for one (the table's next-to-last
#            column)
#   relay_tokio (optional: examples/relay_tokio, statically linked) a sixth runner, `relay`: the
#            floor's relaying on the runner's own machinery (tokio pipes, a current_thread
#            runtime per worker, min(slots, cores) workers): what the runner's layout costs
#            without its work a move (the table's last column)
# The engine is `pbrain-random --first-empty`: each move the first empty point in reading order,
# instant and deterministic (61 moves a game on 15x15 freestyle). gomoku-cli runs with
# `-journal off -noprogress` (its per-game lines on, as c-gomoku-cli prints its own).
#
# OUTDIR (default: $OUT when set, else ./manycore-out) gets manycore.txt (the harness's lines,
# as they come), one JSON file per level (every run's figures) and summary.md (one table).
# Each level is a separate harness call, so a run cut short keeps the levels it finished.
#
# Environment:
#   LEVELS   CONC:GAMES:REPS,... (default below: sized so the whole series takes about 5 minutes
#            on 16 cores, from the 2-core timings in docs/design/BENCHMARKS.md §13). c-gomoku-cli's
#            wall is a whole number of its main thread's 100 ms sleeps (0.1 s at least), so the
#            levels nearest the aim, 16 and 32, play twice the games of the first 16-core series:
#            about 0.8 s for c-gomoku-cli there, not 0.4
#   TOTAL    seconds the whole series may take (default 420): a level that would run past it is
#            cut (its figures are lost, the finished levels' kept), and none starts after it
#   BUDGET   seconds after which no new level starts (default 260: the last level, 1024 slots,
#            takes the longest, c-gomoku-cli about 12 times the new runner's wall there)
#   LIMIT    seconds one run may take (default 90; the harness then kills its measurer only, so
#            what is left of the run is killed here after the level)
#   QUICK=1  tiny game counts, for a check of the script itself (about a minute on 2 cores)
#   PIN=0    leave out the fourth runner: at every level, `pin` is gomoku-cli-new with
#            `-cpus auto` (each slot's engines and the runner's thread that plays it kept on the
#            slot's CPU; c-gomoku-cli has nothing alike), in the table's next-to-last column. Only with
#            python3 (the fallback measures the three)
#   FLOOR=0  leave out the fifth runner, `floor` (DIR/pingpong, when it is there). Only with
#            python3
#   RELAY=0  leave out the sixth runner, `relay` (DIR/relay_tokio, when it is there). Only with
#            python3
# Without python3 the same measurements are made by a loop in this script around runmeasure
# (medians and ratios by awk), and it says so.
set -uo pipefail

DIR=$(cd "${1:?usage: bench/manycore.sh DIR [OUTDIR]}" && pwd)
OUTDIR=${2:-${OUT:-./manycore-out}}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

if [ -n "${QUICK:-}" ]; then
    DEFAULT_LEVELS="1:40:2,2:40:2,4:80:2,8:80:2,16:160:2,32:160:2,64:256:2,256:512:1,1024:1024:1"
else
    DEFAULT_LEVELS="1:1000:5,2:1000:5,4:2000:5,8:4000:5,16:8000:5,32:8192:5,64:4096:5,256:4096:3,1024:4096:3"
fi
LEVELS=${LEVELS:-$DEFAULT_LEVELS}
TOTAL=${TOTAL:-420}
BUDGET=${BUDGET:-260}
LIMIT=${LIMIT:-90}

log="$OUTDIR/manycore.txt"
say() { echo "$@" | tee -a "$log"; }

for f in gomoku-cli-new gomoku-cli-base c-gomoku-cli pbrain-random; do
    if [ ! -x "$DIR/$f" ]; then
        say "manycore: $DIR/$f is missing or not executable"
        exit 1
    fi
done
ENGINE="$DIR/pbrain-random --first-empty"
ARGS="-journal off -noprogress"

# High concurrency needs about 14 descriptors a slot; c-gomoku-cli does not raise its limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true
work=$(mktemp -d "${TMPDIR:-/tmp}/manycore.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work

# The measurer: sidebyside.py looks for $TMPDIR/sidebyside-runmeasure and builds it only when
# absent (the device may have no compiler).
meas=$work/sidebyside-runmeasure
if [ -x "$DIR/runmeasure" ]; then
    cp "$DIR/runmeasure" "$meas"
elif command -v cc >/dev/null; then
    cc -O2 -o "$meas" "$DIR/runmeasure.c"
else
    say "manycore: no runmeasure in $DIR and no cc to build it"
    exit 1
fi

say "manycore: $(date -u +%FT%TZ), $(nproc) cpus ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
say "manycore: fd limit $(ulimit -n); levels $LEVELS; no level starts after ${BUDGET}s, none runs past ${TOTAL}s; limit ${LIMIT}s a run"
for f in gomoku-cli-new gomoku-cli-base c-gomoku-cli pingpong relay_tokio; do
    [ -e "$DIR/$f" ] || continue
    say "manycore: $f $(stat -c %s "$DIR/$f") bytes, sha256 $(sha256sum "$DIR/$f" | cut -c1-12)"
done

python=$(command -v python3 || true)
if [ -n "${NO_PYTHON:-}" ]; then python=""; fi # to check the fallback
if [ -z "$python" ]; then
    say "manycore: python3 is absent: sidebyside.py cannot run; measuring with runmeasure from this script instead (same runs, same order, same figures)"
fi

# One run of runner NAME: "wall cpu own threads rss_mib rc" on stdout.
run_once() {
    local name=$1 conc=$2 games=$3 bin args=$ARGS
    case $name in
    new) bin=$DIR/gomoku-cli-new ;;
    base) bin=$DIR/gomoku-cli-base ;;
    c) bin=$DIR/c-gomoku-cli args="" ;;
    esac
    local d
    d=$(mktemp -d "$work/run.XXXXXX")
    # shellcheck disable=SC2086 # ARGS are words
    (cd "$d" && timeout "$LIMIT" "$meas" "$d/m" "$bin" $args -each "cmd=$ENGINE" -engine name=a \
        -engine name=b -rule 0 -boardsize 15 -games "$games" -repeat -concurrency "$conc" \
        </dev/null >"$d/o" 2>&1)
    if [ -s "$d/m" ]; then
        awk '{ printf "%s %s %s %s %.1f %s\n", $1, $2 + $3, $6, $7, $4 / 1024, $5 }' "$d/m"
    else
        echo "$LIMIT 0 0 0 0 999"
    fi
    if [ "$(awk '{ print $5 }' "$d/m" 2>/dev/null)" != 0 ]; then
        echo "  $name at $conc: exit $(awk '{ print $5 }' "$d/m" 2>/dev/null): $(tail -c 300 "$d/o" | tr '\n' ' ')" >&2
    fi
    rm -rf "$d"
}

# The fallback: one level, the harness's order (forward, then backward, ...), its printed lines.
level_without_python() {
    local conc=$1 games=$2 reps=$3 raw=$work/raw.$1
    : >"$raw"
    for rep in $(seq 0 $((reps - 1))); do
        order="new base c"
        if [ $((rep % 2)) = 1 ]; then order="c base new"; fi
        for name in $order; do
            echo "$name $rep $(run_once "$name" "$conc" "$games" 2>>"$log")" >>"$raw"
        done
    done
    med() { awk -v n="$1" -v k="$2" '$1 == n { print $k }' "$raw" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    line="concurrency $(printf %5d "$conc"), $games games, $reps runs:"
    for n in new base c; do
        line="$line  $n: wall $(printf %.3f "$(med $n 3)") s, cpu $(printf %.2f "$(med $n 4)") s, own $(printf %.2f "$(med $n 5)") s, $(printf %.0f "$(med $n 6)") threads, $(printf %.1f "$(med $n 7)") MiB |"
    done
    say "$line"
    for o in base c; do
        ratios=$(awk -v o="$o" '{ w[$1 " " $2] = $3 } END { for (k in w) { split(k, p, " "); if (p[1] == "new" && w[o " " p[2]] > 0) print w[k] / w[o " " p[2]] } }' "$raw" | sort -g)
        m=$(echo "$ratios" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        say "    new/$o wall: median $(printf %.3f "$m") (runs $(echo "$ratios" | awk '{ printf "%.2f ", $1 }'))"
    done
    # Rows for the summary: conc name wall cpu own threads rss.
    for n in new base c; do echo "$conc $n $(med $n 3) $(med $n 4) $(med $n 5) $(med $n 6) $(med $n 7)"; done >>"$work/rows"
}

start=$(date +%s)
IFS=, read -ra levels <<<"$LEVELS"
for level in "${levels[@]}"; do
    IFS=: read -r conc games reps <<<"$level"
    elapsed=$(($(date +%s) - start))
    if [ "$elapsed" -ge "$BUDGET" ]; then
        say "manycore: level $level skipped: ${elapsed}s spent of the ${BUDGET}s budget"
        continue
    fi
    t0=$(date +%s)
    left=$((TOTAL - elapsed))
    extra=()
    if [ "${PIN:-1}" != 0 ]; then
        extra=(--runner "pin=$DIR/gomoku-cli-new $ARGS -cpus auto")
    fi
    if [ "${FLOOR:-1}" != 0 ] && [ -x "$DIR/pingpong" ]; then
        extra+=(--runner "floor=$DIR/pingpong")
    fi
    if [ "${RELAY:-1}" != 0 ] && [ -x "$DIR/relay_tokio" ]; then
        extra+=(--runner "relay=$DIR/relay_tokio")
    fi
    if [ -n "$python" ]; then
        timeout "$left" "$python" "$DIR/sidebyside.py" --engine "$ENGINE" --levels "$conc:$games:$reps" \
            --limit "$LIMIT" --out "$OUTDIR/level-$conc.json" \
            --runner "new=$DIR/gomoku-cli-new $ARGS" --runner "base=$DIR/gomoku-cli-base $ARGS" \
            --runner "c=$DIR/c-gomoku-cli" "${extra[@]}" 2>&1 | grep --line-buffered -v '^cpus ' | tee -a "$log"
    else
        export -f level_without_python run_once say
        export DIR ENGINE ARGS LIMIT meas work log
        timeout "$left" bash -c 'level_without_python "$@"' _ "$conc" "$games" "$reps"
    fi
    # Runs cut by a limit leave their runner (and its engines) behind: none may go on into the
    # next level's runs.
    for p in /proc/[0-9]*; do
        case $(readlink "$p/exe" 2>/dev/null) in
        "$DIR"/*)
            what=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null | cut -c1-80)
            kill -KILL "${p#/proc/}" 2>/dev/null && say "manycore: killed a leftover ${p#/proc/} ($what)"
            ;;
        esac
    done
    if [ $(($(date +%s) - start)) -ge "$TOTAL" ]; then
        say "manycore: level $level cut at the ${TOTAL}s limit of the series: its figures are lost"
    fi
    say "manycore: level $level took $(($(date +%s) - t0))s"
done

# The summary table, from the JSON files (python) or the fallback's rows.
summary=$OUTDIR/summary.md
{
    echo "| conc | games | wall new / c-gomoku-cli | wall new / base | new wall s | base wall s | c wall s | own CPU ms/game new · base · c | threads new · base · c | peak RSS MiB new · base · c | wall new -cpus auto / c-gomoku-cli | wall floor / c-gomoku-cli | wall relay / c-gomoku-cli |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    if [ -n "$python" ]; then
        "$python" - "$OUTDIR" <<'EOF'
import glob, json, os, statistics, sys
rows = []
for f in glob.glob(os.path.join(sys.argv[1], "level-*.json")):
    rows += json.load(open(f))
for r in sorted(rows, key=lambda r: r["concurrency"]):
    runs, g = r["runs"], r["games"]
    med = lambda n, k: statistics.median(x[k] for x in runs[n])
    ratio = lambda o, n="new": statistics.median(x["wall"] / y["wall"] for x, y in zip(runs[n], runs[o]))
    pinned = f"{ratio('c', 'pin'):.3f}" if "pin" in runs else "-"
    floor = f"{ratio('c', 'floor'):.3f}" if "floor" in runs else "-"
    relay = f"{ratio('c', 'relay'):.3f}" if "relay" in runs else "-"
    failed = sum(x["rc"] != 0 for xs in runs.values() for x in xs)
    note = f" ({failed} runs failed: see manycore.txt)" if failed else ""
    print(f"| {r['concurrency']}{note} | {g} | {ratio('c'):.3f} | {ratio('base'):.3f} | "
          f"{med('new', 'wall'):.3f} | {med('base', 'wall'):.3f} | {med('c', 'wall'):.3f} | "
          + " · ".join(f"{med(n, 'own') * 1000 / g:.3f}" for n in ("new", "base", "c")) + " | "
          + " · ".join(f"{med(n, 'threads'):.0f}" for n in ("new", "base", "c")) + " | "
          + " · ".join(f"{med(n, 'rss_mib'):.1f}" for n in ("new", "base", "c")) + f" | {pinned} | {floor} | {relay} |")
EOF
    elif [ -f "$work/rows" ]; then
        awk '{ k = $1; w[k " " $2] = $3; o[k " " $2] = $5; t[k " " $2] = $6; m[k " " $2] = $7; c[k] = 1 }
            END { for (k in c) print k }' "$work/rows" | sort -n | while read -r conc; do
            awk -v c="$conc" -v lv="$LEVELS" '$1 == c { w[$2] = $3; o[$2] = $5; t[$2] = $6; m[$2] = $7 }
                END { n = split(lv, L, ","); for (i = 1; i <= n; i++) { split(L[i], p, ":"); if (p[1] == c) g = p[2] }
                    printf "| %s | %s | %.3f (of medians) | %.3f (of medians) | %.3f | %.3f | %.3f | %.3f · %.3f · %.3f | %d · %d · %d | %.1f · %.1f · %.1f | - | - | - |\n",
                    c, g, w["new"] / w["c"], w["new"] / w["base"], w["new"], w["base"], w["c"],
                    o["new"] * 1000 / g, o["base"] * 1000 / g, o["c"] * 1000 / g, t["new"], t["base"], t["c"], m["new"], m["base"], m["c"] }' "$work/rows"
        done
    fi
} >"$summary"
cat "$summary" | tee -a "$log"
say "manycore: done in $(($(date +%s) - start))s, load $(cut -d' ' -f1-3 /proc/loadavg)"
