#!/usr/bin/env bash
# Issue 22 measurements (docs/design/BENCHMARKS.md, "Generated balanced openings"):
#   gen    the bundled balanced sets with pbrain-scout, timed: openings/freestyle15-balanced.txt
#          and openings/renju15-balanced.txt (the progress files stay in $OUT)
#   audit  one engine pair on the generated freestyle set and on openings/freestyle15.txt, the
#          same number of games each, then `openings audit` of both, side by side
# Usage (from the crate root): bash bench/opengen.sh [gen|audit|all]
# Environment: GC (the runner, default target/release/gomoku-cli if built, else target/debug),
# SCOUT (default target/release/pbrain-scout), DEPTH (7), BALANCE (60), COUNT (1000),
# CONC (2), GAMES (1000), OUT (target/opengen-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
step=${1:-all}
GC=${GC:-$( [ -x target/release/gomoku-cli ] && echo target/release/gomoku-cli || echo target/debug/gomoku-cli )}
SCOUT=${SCOUT:-target/release/pbrain-scout}
DEPTH=${DEPTH:-7} BALANCE=${BALANCE:-60} COUNT=${COUNT:-1000} CONC=${CONC:-2} GAMES=${GAMES:-1000}
OUT=${OUT:-target/opengen-bench}
mkdir -p "$OUT"
[ -x "$SCOUT" ] || { echo "build it first: cargo build --release -p pbrain-scout" >&2; exit 2; }

gen() { # NAME RULE
    local name=$1 rule=$2
    echo "== $name: scout depth=$DEPTH, -balance $BALANCE, -count $COUNT, -concurrency $CONC ($(nproc) cores)"
    /usr/bin/time -f "wall %e s, user %U s, sys %S s" \
        "$GC" openings generate -engine "cmd=$SCOUT" depth="$DEPTH" -rule "$rule" \
        -count "$COUNT" -balance "$BALANCE" -concurrency "$CONC" -format pos -srand 22 \
        -o "$OUT/$name.txt"
    cp "$OUT/$name.txt" "openings/$name.txt"
}

audit_one() { # LABEL FILE
    local label=$1 file=$2
    rm -f "$OUT/$label.jsonl"
    "$GC" -engine "cmd=$SCOUT" name=scout-d3 depth=3 -engine "cmd=$SCOUT" name=scout-d2 depth=2 \
        -each tc=10/1 -rule 0 -boardsize 15 -games "$GAMES" -repeat -concurrency "$CONC" \
        -openings "file=$file" type=pos order=random srand=22 \
        -journal "$OUT/$label.jsonl" -quiet -noprogress > "$OUT/$label.txt"
    "$GC" openings audit "$OUT/$label.jsonl" --json > "$OUT/$label.audit.json"
}

audit() {
    audit_one generated openings/freestyle15-balanced.txt
    audit_one bundled openings/freestyle15.txt
    python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
print(f"{'set':<10} {'games':>5} {'pairs':>5} {'decisive pairs':>14} {'colour-decided pairs':>20} {'black score':>11}")
for label in ("generated", "bundled"):
    a = json.load(open(f"{out}/{label}.audit.json"))
    games = pairs = decisive = sweeps = 0
    black = 0.0
    for o in a["openings"]:
        games += o["games"]
        black += o["black_wins"] + 0.5 * o["draws"]
        pairs += o["pairs"]
        p = o["pentanomial"]
        decisive += p[0] + p[4]
        sweeps += o["black_sweeps"] + o["white_sweeps"]
    print(f"{label:<10} {games:>5} {pairs:>5} {decisive / pairs:>14.3f} {sweeps / pairs:>20.3f} {black / games:>11.3f}")
EOF
}

case $step in
    gen) gen freestyle15-balanced 0; gen renju15-balanced 4 ;;
    audit) audit ;;
    all) gen freestyle15-balanced 0; gen renju15-balanced 4; audit ;;
    *) echo "usage: bench/opengen.sh [gen|audit|all]" >&2; exit 2 ;;
esac
