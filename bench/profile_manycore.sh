#!/usr/bin/env bash
# Where the runner's time goes at 16 and 32 slots on a many-core machine (issue 37), against
# c-gomoku-cli: perf counters, a sampled profile by thread and symbol, and scheduler wake-up
# latencies (perf sched) and system calls by thread name and number, written as text into OUTDIR.
#
#   bench/profile_manycore.sh DIR OUTDIR
#
# DIR holds gomoku-cli-prof (a `--profile profiling` build with `objcopy --strip-debug`: symbols
# kept, 8 MB), c-gomoku-cli and pbrain-random (release builds), and perf with the libraries it
# needs in DIR/perflib (copied from a Debian machine: `cp /usr/bin/perf DIR/` and every library
# `ldd` lists but libc and libm) so that a device machine without perf can run it; about 41 MB in
# all (57 MB with bench/manycore.sh's runners: with the work tree, more than the device tool's
# 64 MiB carry, so carry DIR packed as bench/README.md shows). SMALL=1 plays 64 games a run (a
# check of the script). On the lent 16-core machine it takes 16 s.
set -u
D=$(cd "$1" && pwd); OUT=$2; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$D/perflib
P=$D/perf
log=$OUT/profile.txt
say() { echo "$@" | tee -a "$log"; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
say "profile: $(date -u +%FT%TZ) $(nproc) cpus, $(uname -r), paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>&1), uid $(id -u)"
$P stat -e task-clock,context-switches true >>"$log" 2>&1 || say "perf stat failed"
W=$(mktemp -d /tmp/prof.XXXXXX)
ENGINE="$D/pbrain-random --first-empty"
run() { # name bin conc games extra...
  local name=$1 bin=$2 conc=$3 games=$4; shift 4
  cd "$W"
  # Counters over the runner and its engines together, then a sampled profile.
  $P stat -x, -e task-clock,context-switches,cpu-migrations,cycles,instructions -o "$OUT/stat-$name-$conc.csv" -- \
    "$bin" "$@" -each "cmd=$ENGINE" -engine name=a -engine name=b -rule 0 -boardsize 15 -games "$games" \
    -repeat -concurrency "$conc" </dev/null >/dev/null 2>&1
  local t0=$(date +%s%N)
  timeout 120 $P record -F 1999 -o "$W/perf-$name-$conc.data" -- \
    "$bin" "$@" -each "cmd=$ENGINE" -engine name=a -engine name=b -rule 0 -boardsize 15 -games "$games" \
    -repeat -concurrency "$conc" </dev/null >/dev/null 2>>"$log"
  say "$name conc $conc: recorded run $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  $P report -i "$W/perf-$name-$conc.data" --stdio --no-children --sort comm,dso --percent-limit 0.5 \
    >"$OUT/comm-$name-$conc.txt" 2>/dev/null
  $P report -i "$W/perf-$name-$conc.data" --stdio --no-children --sort comm,dso,sym --percent-limit 0.15 \
    >"$OUT/sym-$name-$conc.txt" 2>/dev/null
  # Thread-level: who runs the runner's threads (comm per thread).
  $P report -i "$W/perf-$name-$conc.data" --stdio --no-children --sort pid,comm --percent-limit 0.3 \
    >"$OUT/pid-$name-$conc.txt" 2>/dev/null
  rm -f "$W/perf-$name-$conc.data"
}
for conc in 16 32; do
  games=4000; [ "$conc" = 32 ] && games=4096
  [ -n "${SMALL:-}" ] && games=64
  run new "$D/gomoku-cli-prof" $conc $games -journal off -noprogress
  run c "$D/c-gomoku-cli" $conc $games
done
# System calls of each runner's threads by number (every 4th sampled), engines apart by name.
for name in new c; do
  bin=$D/gomoku-cli-prof; extra="-journal off -noprogress"
  [ $name = c ] && bin=$D/c-gomoku-cli && extra=""
  cd "$W"
  timeout 60 $P record -e raw_syscalls:sys_enter -c 4 -o "$W/sys-$name.data" -- "$bin" $extra -each "cmd=$ENGINE" \
    -engine name=a -engine name=b -rule 0 -boardsize 15 -games ${SYS_GAMES:-800} -repeat -concurrency 16 </dev/null >/dev/null 2>>"$log"
  $P script -i "$W/sys-$name.data" -F comm,trace 2>/dev/null | awk '{c[$1" "$2" "$3]++} END {for (k in c) print c[k]*4, k}' \
    | sort -rn | head -40 >"$OUT/sys-$name.txt"
  rm -f "$W/sys-$name.data"
done
# perf sched: wake-up latency over one short run each (may be unavailable).
for name in new c; do
  bin=$D/gomoku-cli-prof; extra="-journal off -noprogress"
  [ $name = c ] && bin=$D/c-gomoku-cli && extra=""
  cd "$W"
  timeout 60 $P sched record -o "$W/sched-$name.data" -- "$bin" $extra -each "cmd=$ENGINE" -engine name=a \
    -engine name=b -rule 0 -boardsize 15 -games ${SCHED_GAMES:-1000} -repeat -concurrency 16 </dev/null >/dev/null 2>>"$log"
  $P sched latency -i "$W/sched-$name.data" --sort max 2>/dev/null | head -40 >"$OUT/sched-$name.txt"
  rm -f "$W/sched-$name.data"
done
# LOW="2 8" (slot counts): where the CPU goes at few slots, by command and DSO and by symbol
# (kernel and user), for the runner, the tokio relay and the floor (DIR/relay_tokio, DIR/pingpong
# where present) and c-gomoku-cli, 500 games a slot each (BENCHMARKS.md §13).
for conc in ${LOW:-}; do
  games=$((conc * 500)); [ -n "${SMALL:-}" ] && games=64
  for name in new relay floor c; do
    case $name in
    new) cmd="$D/gomoku-cli-prof -journal off -noprogress" ;;
    relay) cmd=$D/relay_tokio ;;
    floor) cmd=$D/pingpong ;;
    c) cmd=$D/c-gomoku-cli ;;
    esac
    [ -x "${cmd%% *}" ] || continue
    cd "$W"
    # shellcheck disable=SC2086 # cmd is words
    timeout 60 $P record -F 4999 -o "$W/low.data" -- $cmd -each "cmd=$ENGINE" -engine name=a -engine name=b \
      -rule 0 -boardsize 15 -games $games -repeat -concurrency "$conc" </dev/null >/dev/null 2>>"$log"
    $P report -i "$W/low.data" --stdio --no-children --sort comm,dso --percent-limit 0.5 2>/dev/null \
      | grep -v '^#' | grep -v '^$' >"$OUT/low-comm-$name-$conc.txt"
    $P report -i "$W/low.data" --stdio --no-children --sort comm,sym --percent-limit 0.25 2>/dev/null \
      | grep -v '^#' | grep -v '^$' | head -80 >"$OUT/low-sym-$name-$conc.txt"
    rm -f "$W/low.data"
  done
done
say "profile: done $(date -u +%FT%TZ)"
rm -rf "$W"
