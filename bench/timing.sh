#!/usr/bin/env bash
# Time accuracy: the runner's think time of each move against the engine's own measurement, and
# false time losses at a short time control, as the load grows.
#
# Engines: examples/spender.rs, which spins the CPU for min(turn, time_left / 10) - 5 ms a move (it
# uses most of its time, and its spinning is the load) and reports its own time of each move
# with MESSAGE spent_us. Time control 1 s + 0.01 s a move, tolerance TOLERANCE (0.02 s), freestyle
# 15x15. Each level "C:G" plays G games at concurrency C; the default goes from 1x to 16x the
# cores of a 2-core machine, with 2000 games at 4x the cores.
#
# For every move: error = runner's think time (journal times_ms, whole milliseconds) - engine's
# own (spent_us); the journal's 1 ms resolution makes single errors exact to -1..+1 ms.
# Environment: LEVELS ("2:200 8:2000 16:500 32:500"), TOLERANCE (0.02), NO_BUILD=1, KEEP=1.
# Last line: "timing: ..." with the false time losses and the error's 99.9th percentile per level.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

LEVELS=${LEVELS:-"2:200 8:2000 16:500 32:500"}
TOLERANCE=${TOLERANCE:-0.02}
build_release
R=target/release
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "raw data in $tmp" >&2; fi

echo "machine: $(machine)"
for level in $LEVELS; do
    conc=${level%%:*} games=${level##*:}
    t0=$(date +%s.%N)
    "$R/gomoku-cli" -engine "cmd=$R/examples/spender" name=a -engine "cmd=$R/examples/spender" name=b \
        -each tc=1+0.01 "tolerance=$TOLERANCE" -rule 0 -boardsize 15 -games "$games" \
        -concurrency "$conc" -quiet -noprogress -journal "$tmp/c$conc.jsonl" >"$tmp/c$conc.out" 2>&1
    echo "concurrency $conc: $games games in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s, load $(cut -d' ' -f1 /proc/loadavg)" >&2
done

python3 - "$tmp" "$LEVELS" "$TOLERANCE" <<'EOF'
import json, sys

tmp, levels, tolerance = sys.argv[1], sys.argv[2].split(), float(sys.argv[3])

def pct(v, q):
    return v[min(len(v) - 1, int(q * len(v)))]

print(f"tolerance {tolerance} s; error = runner think time - engine's own, ms (journal resolution 1 ms)")
print(f"  {'conc':>4} {'games':>6} {'moves':>7} {'time losses':>11} {'median':>7} {'p99':>6} {'p99.9':>6} {'max':>6}")
verdict = []
for level in levels:
    conc = level.split(":")[0]
    errors, games, losses = [], 0, 0
    for line in open(f"{tmp}/c{conc}.jsonl"):
        g = json.loads(line)
        if g.get("type") == "header":
            continue
        games += 1
        if g["termination"] == "time_forfeit":
            losses += 1
        spent = {"black": [], "white": []}
        for colour, text in g.get("messages", []):
            if text.startswith("spent_us "):
                spent[colour].append(int(text.split()[1]))
        # Moves alternate from the side to move after the opening (none here: black first).
        seen = {"black": 0, "white": 0}
        for i, ms in enumerate(g["times_ms"]):
            colour = "black" if i % 2 == 0 else "white"
            k = seen[colour]
            seen[colour] += 1
            if k < len(spent[colour]):
                errors.append(ms - spent[colour][k] / 1000)
    errors.sort()
    print(f"  {conc:>4} {games:>6} {len(errors):>7} {losses:>11} {pct(errors, 0.5):>7.2f} "
          f"{pct(errors, 0.99):>6.2f} {pct(errors, 0.999):>6.2f} {errors[-1]:>6.2f}")
    verdict.append(f"c{conc} {losses} losses/{games} games, p99.9 {pct(errors, 0.999):.1f} ms, max {errors[-1]:.1f} ms")
print("timing: " + "; ".join(verdict))
EOF
