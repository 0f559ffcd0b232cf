#!/bin/bash
# same_outputs.sh OLD_CLI NEW_CLI: do two builds of gomoku-cli write the same records for the
# same run? Plays three deterministic matches (the third with search output and adjudication)
# and a short tuning run (depth-limited scout, seeded random, one slot, fixed
# srand) with each build and the same engine binaries, then compares: PGN, messages, samples
# (csv, bin) and the RenLib library byte for byte; journal (its keys in order), PGN (line breaks
# aside) and messages with search reports, SGF, .psq and console output with the figures that vary between any two runs (think
# times, CPU, memory, timestamps) left out.
# Used for refactors that must not change behaviour (issue 18). Engines from BIN_DIR
# (default target/debug).
set -euo pipefail
OLD=$(realpath "$1"); NEW=$(realpath "$2")
BIN=$(realpath "${BIN_DIR:-target/debug}")
ROOT=$(pwd)
W=$(mktemp -d /tmp/same-outputs.XXXXXX)
play() { # CLI DIR
  mkdir -p "$2"; cd "$2"
  "$1" -engine cmd="$BIN/pbrain-scout --depth 2" name=scout -engine cmd="$BIN/pbrain-random --seed 7" name=random \
    -each tc=10/1 -rule 4 -boardsize 15 -games 12 -repeat -concurrency 1 \
    -openings file="$ROOT/openings/renju15.txt" type=pos order=random srand=42 -transform \
    -journal j.jsonl -pgn g.pgn -sgf g.sgf -msg g.msg -psq psq -sample file=s.csv format=csv freq=0.5 \
    -renlib g.lib -quiet > out.txt 2> err.txt
  "$1" -engine cmd="$BIN/pbrain-scout --depth 1" name=a -engine cmd="$BIN/pbrain-random --seed 3" name=b \
    -engine cmd="$BIN/pbrain-random --seed 4" name=c -gauntlet -each tc=10/1 -rule 0 -boardsize 15 \
    -games 4 -rounds 1 -drawafter 40 -concurrency 1 -openings file="$ROOT/openings/freestyle15.txt" type=pos srand=5 \
    -journal j2.jsonl -pgn g2.pgn -sample file=s2.bin format=bin -quiet > out2.txt 2> err2.txt
  # Search output, adjudication and tuning (issue 34): scout against itself at two depths with
  # -draw and -resign on its evaluations, then a short SPSA tuning of scout's four weight.
  "$1" -engine cmd="$BIN/pbrain-scout --depth 3" name=deep -engine cmd="$BIN/pbrain-scout --depth 1" name=shallow \
    -each tc=10/1 -rule 0 -boardsize 15 -games 8 -repeat -concurrency 1 \
    -openings file="$ROOT/openings/freestyle15.txt" type=pos srand=9 -draw movenumber=20 movecount=4 score=30 \
    -resign movecount=3 score=600 -journal j3.jsonl -pgn g3.pgn -sample file=s3.csv format=csv eval=on -quiet \
    > out3.txt 2> err3.txt
  printf 'eval_four, int, 150, 0, 400, 20, 0.002\n' > four.params
  "$1" tune -engine cmd="$BIN/pbrain-scout" depth=2 tc=0/10 -params four.params -iterations 6 -concurrency 1 \
    -srand 1 -openings file="$ROOT/openings/freestyle15.txt" type=pos order=random -journal j4.jsonl \
    -tuneout csv=t.csv -quiet > out4.txt 2> err4.txt
  cd "$ROOT"
}
play "$OLD" "$W/old"; play "$NEW" "$W/new"
python3 - "$W" <<'PY'
import json, os, re, sys
w = sys.argv[1]
bad = 0
def same(name, a, b):
    global bad
    ok = a == b
    bad += not ok
    print(("same     " if ok else "DIFFERS  ") + name)
read = lambda side, f: open(os.path.join(w, side, f), "rb").read()
for f in ["s.csv", "s2.bin", "g.lib", "s3.csv", "t.csv"]:
    same(f + " (bytes)", read("old", f), read("new", f))
# Scout's moves carry search reports, so the PGN's move comments hold think times, and a time's
# length moves the line breaks.
pgn = lambda side, f: re.sub(rb"\s+", b" ", re.sub(rb"[0-9.]+s\}", b"Ns}", read(side, f)))
for f in ["g.pgn", "g2.pgn", "g3.pgn"]:
    same(f + " (without times)", pgn("old", f), pgn("new", f))
same("g.msg (without times)", *(re.sub(rb"time [0-9]+ms", b"time Nms", read(s, "g.msg")) for s in ["old", "new"]))
def journal(side, f):
    lines = []
    for l in read(side, f).decode().splitlines():
        d = json.loads(l)
        for k in ["times_ms", "started", "ended", "usage", "command_line", "outputs"]:
            d.pop(k, None)
        for report in d.get("search") or []:
            if report:
                report.pop("ms", None)  # the engine's own think time
        lines.append(json.dumps(d))  # keys in the order the line has them
    return lines
for f in ["j.jsonl", "j2.jsonl", "j3.jsonl", "j4.jsonl"]:
    same(f + " (without times)", journal("old", f), journal("new", f))
same("g.sgf (without comments: times)", *(re.sub(rb"C\[[^\]]*\]", b"", read(s, "g.sgf")) for s in ["old", "new"]))
def psq(side):
    d = os.path.join(w, side, "psq")
    return {f: re.sub(rb"^(\d+,\d+),\d+$", rb"\1", read(side, "psq/" + f), flags=re.M) for f in sorted(os.listdir(d))}
same("psq/ (without times)", psq("old"), psq("new"))
for f in ["out.txt", "out2.txt", "out3.txt", "out4.txt", "err.txt", "err2.txt", "err3.txt", "err4.txt"]:
    same(f + " (without CPU, memory)", *(re.sub(rb"-?[0-9.]+( s|%| MiB)|(?<=CPU/thinking )(?:-|[0-9.]+)", b"N", read(s, f)) for s in ["old", "new"]))
print(f"{bad} differ; files in {w}")
sys.exit(1 if bad else 0)
PY
