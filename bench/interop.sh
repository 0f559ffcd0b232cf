#!/usr/bin/env bash
# Interop check against a real engine before a change to the engine protocol lands: short runs of
# Rapfi (github.com/dhbloo/rapfi, the strongest public gomoku engine) through every feature that
# talks to engines, with a verdict per feature. Our example engines agree with our reading of the
# protocol; Rapfi is written by others and reads some commands differently (SWAP2BOARD's stones
# as BOARD's x,y,c lines, BEGIN refused on a board with stones), so only a real engine shows such
# differences. CI cannot fetch or build it: run this by hand and record the verdicts in
# BENCHMARKS.md.
#
#   RAPFI=/path/to/pbrain-rapfi bench/interop.sh       a Rapfi binary
#   RAPFI_SRC=/path/to/rapfi bench/interop.sh          a checkout of its source: built here
#                                                      (cmake, Release, no command modules) in
#                                                      $SCRATCH (default: a temporary folder)
# Without either it says so and skips (exit 0). Nothing of Rapfi is kept in this repository.
#
# Rapfi runs in its binary's folder: without a config.toml there (a build folder has none) it
# uses its built-in classical evaluation, no network. Options: TC (default 10/0.5), JOBS (cmake
# build jobs, default 2), NO_BUILD=1 (use the runner already built), BIN_DIR (default
# target/release; target/debug works too), KEEP=1 (keep the runs' folders and logs).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

TC=${TC:-10/0.5}
BIN_DIR=${BIN_DIR:-target/release}

if [ -n "${RAPFI:-}" ]; then
    if [ ! -x "$RAPFI" ]; then
        echo "interop: RAPFI=$RAPFI is not an executable file" >&2
        exit 1
    fi
    rapfi_from="binary $RAPFI"
elif [ -n "${RAPFI_SRC:-}" ]; then
    if [ ! -f "$RAPFI_SRC/Rapfi/CMakeLists.txt" ]; then
        echo "interop: RAPFI_SRC=$RAPFI_SRC has no Rapfi/CMakeLists.txt (a checkout of github.com/dhbloo/rapfi is expected)" >&2
        exit 1
    fi
    if ! command -v cmake >/dev/null; then
        echo "interop: SKIP: building Rapfi needs cmake (apt-get install cmake), or give RAPFI=path/to/pbrain-rapfi" >&2
        exit 0
    fi
    build=${SCRATCH:-$(mktemp -d)}/rapfi-build
    echo "interop: building Rapfi from $RAPFI_SRC into $build (a few minutes)" >&2
    cmake -S "$RAPFI_SRC/Rapfi" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNO_COMMAND_MODULES=ON >"$build.cmake.log" 2>&1 ||
        { echo "interop: cmake failed, see $build.cmake.log" >&2; exit 1; }
    cmake --build "$build" -j"${JOBS:-2}" >"$build.build.log" 2>&1 ||
        { echo "interop: the Rapfi build failed, see $build.build.log" >&2; exit 1; }
    RAPFI=$build/pbrain-rapfi
    rapfi_from="source $RAPFI_SRC at commit $(git -C "$RAPFI_SRC" rev-parse HEAD 2>/dev/null || echo unknown)"
else
    echo "interop: SKIP: no Rapfi; give RAPFI=path/to/pbrain-rapfi, or RAPFI_SRC=a checkout of github.com/dhbloo/rapfi to build it"
    exit 0
fi
RAPFI=$(realpath "$RAPFI")

if [ -z "${NO_BUILD:-}" ]; then
    profile=$([ "$BIN_DIR" = target/debug ] && echo "" || echo --release)
    cargo build $profile --workspace --bins >&2
fi
CLI=$PWD/$BIN_DIR/gomoku-cli
SCOUT=$PWD/$BIN_DIR/pbrain-scout
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; fi

about=$(printf 'ABOUT\r\nEND\r\n' | (cd "$(dirname "$RAPFI")" && timeout 10 "$RAPFI") | grep -m1 name= | tr -d '\r' || true)
echo "interop: Rapfi from $rapfi_from"
echo "interop: Rapfi says $about"
echo "interop: tc $TC, runner $CLI; $(machine)"

verdicts=()
failed=0

# check DIR FEATURE GAMES: the verdict of the run in DIR from its journal.
check() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
folder, feature, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
games = {}
for line in open(f"{folder}/j.jsonl"):
    e = json.loads(line)
    if "game" in e:
        games.setdefault(e["game"], []).append(e)
problems = []
if len(games) != expected:
    problems.append(f"{len(games)} games in the journal, {expected} expected")
if any(len(v) > 1 for v in games.values()):
    problems.append("a game recorded twice")
ends, forms, heard, groups = [], set(), [], []
for n, (g, *_) in sorted(games.items()):
    how = g["termination"]
    ends.append(f"{g['result']} {how}")
    # A game that ends on the board; anything else is an engine's fault or a disagreement.
    if how not in ("five", "full_board", "draw_after"):
        problems.append(f"game {n}: {how}: {g['reason']}")
    swap = g.get("swap")
    if feature.startswith("swap"):
        if not swap or swap.get("unsupported"):
            problems.append(f"game {n}: no swap ({swap})")
        else:
            for i, s in enumerate(swap["steps"]):
                # The proposer's first request is the empty board: the same in both forms.
                if i > 0 or s["by"] == "chooser":
                    forms.add(f"{swap[s['by']]} {s.get('form', 'points')}")
            last = swap["steps"][-1]
            if not (last.get("swap") or len(last.get("stones", "")) in (2, 3)):
                problems.append(f"game {n}: the swap did not decide ({swap['steps']})")
    if feature == "maxmemory":
        for colour in ("black", "white"):
            peak = g["usage"][colour]["peak_memory"]
            if peak > 64 * 2**20 + 32 * 2**20:
                problems.append(f"game {n}: {colour} peaked at {peak >> 20} MiB")
    if feature in ("search", "multipv"):
        moves = g["moves"]
        search = g.get("search") or [None] * len(g["times_ms"])
        told = [s for s in search if s and "ev" in s]
        heard.append((len(told), len(search)))
        if feature == "multipv":
            groups.extend(len(s.get("mpv", [])) for s in told)
if heard:
    told, total = map(sum, zip(*heard))
    # Rapfi plays a game's first move without a search: at most one move a game unreported.
    if told < total - len(heard):
        problems.append(f"only {told} of {total} moves carried an evaluation")
    extra_search = f"; {told} of {total} moves with an evaluation"
    if feature == "multipv":
        # Rapfi announces fewer PVs (INFO NUMPV 1 or 2) where fewer moves are worth a search,
        # as on a forced reply: most moves, not all, carry three.
        full = sum(1 for k in groups if k == 3)
        extra_search += f", {full} with 3 PVs"
        if full < len(groups) * 0.5:
            problems.append(f"only {full} of {len(groups)} reports had 3 PVs")
verdict = "FAIL" if problems else "PASS"
extra = f"; SWAP2BOARD forms answered: {', '.join(sorted(forms))}" if forms else ""
if heard:
    extra += extra_search
print(f"{verdict} {len(games)} games: {', '.join(ends)}{extra}" + "".join(f"\n    {p}" for p in problems))
PY
}

# feature NAME GAMES ARGS...: a run of GAMES games with ARGS in its own folder, and its verdict.
feature() {
    local name=$1 games=$2
    shift 2
    local dir=$tmp/$name
    mkdir -p "$dir"
    local code=0
    (cd "$dir" && "$CLI" "$@" -games "$games" -journal j.jsonl -log -noprogress >out.txt 2>err.txt) || code=$?
    record "$name" "$dir" "$games" "$code"
}

# record NAME DIR GAMES CODE: the verdict line of a finished run.
record() {
    local name=$1 dir=$2 games=$3 code=$4 verdict
    if [ "$code" != 0 ]; then
        verdict="FAIL exit code $code: $(tail -3 "$dir/err.txt" | tr '\n' ' ')"
    else
        verdict=$(check "$dir" "$name" "$games")
    fi
    case $verdict in FAIL*) failed=1 ;; esac
    verdicts+=("$(printf '%-12s %s' "$name" "$verdict")")
    echo "interop: ${verdicts[-1]}"
}

rapfi2=(-engine "cmd=$RAPFI" name=rapfiA -engine "cmd=$RAPFI" name=rapfiB -each "tc=$TC")
scout=(-engine "cmd=$RAPFI" name=rapfi -engine "cmd=$SCOUT" name=scout -each "tc=$TC")

feature freestyle 2 "${rapfi2[@]}" -rule 0 -repeat
feature renju 2 "${rapfi2[@]}" -rule 4 -repeat
feature swap2 2 "${rapfi2[@]}" -swap2 -repeat
feature swap1 2 "${rapfi2[@]}" -swap1 -repeat
feature swap2-scout 2 "${scout[@]}" -swap2 -repeat
feature swap1-scout 2 "${scout[@]}" -swap1 -repeat
feature suspend 2 "${rapfi2[@]}" -suspend -repeat
feature sendbyboard 2 "${rapfi2[@]}" -sendbyboard -repeat
feature maxmemory 2 "${rapfi2[@]}" maxmemory=67108864 -repeat
# A named Rapfi (no ABOUT asked before its first game) with a max_memory it finds too small: it
# prints ERROR about that INFO line before its ABOUT answer, which must not be read as a move.
feature maxmemory-1m 2 -engine "cmd=$RAPFI" name=rapfi maxmemory=1048576 -engine "cmd=$SCOUT" name=scout -each "tc=$TC" -repeat

# -resume: a run of 4 games stopped by Ctrl-C (SIGINT) once its first game is in the journal,
# then the same command line with -resume: exactly the 4 games, each once.
dir=$tmp/resume
mkdir -p "$dir"
resume_args=("${rapfi2[@]}" -swap2 -repeat -games 4 -journal j.jsonl -log -noprogress)
(cd "$dir" && exec "$CLI" "${resume_args[@]}" >out1.txt 2>err1.txt) &
pid=$!
for _ in $(seq 600); do
    if [ -f "$dir/j.jsonl" ] && grep -q '"game"' "$dir/j.jsonl"; then break; fi
    sleep 0.5
done
kill -INT "$pid" 2>/dev/null || true
code=0
wait "$pid" || code=$?
if [ "$code" != 130 ]; then
    failed=1
    verdicts+=("$(printf '%-12s %s' resume "FAIL the stopped run exited with $code (130 expected)")")
    echo "interop: ${verdicts[-1]}"
else
    code=0
    (cd "$dir" && "$CLI" "${resume_args[@]}" -resume >out.txt 2>err.txt) || code=$?
    record resume "$dir" 4 "$code"
fi

# What Rapfi says about its search (INFO show_detail 2, asked by default): an evaluation on every
# move it searched; with -sample multipv=3, YXBOARD + YXNBEST 3 and three PVs a move.
feature search 2 "${rapfi2[@]}" -repeat
feature multipv 2 "${rapfi2[@]}" -repeat -sample format=binpack file=s.binpack multipv=3
# `gomoku-cli check` on Rapfi: reported, not a verdict on the runner (a fail there is Rapfi's).
code=0
"$CLI" check -engine "cmd=$RAPFI" >"$tmp/check.txt" 2>&1 || code=$?
fails=$(grep '^fail' "$tmp/check.txt" | awk '{print $2}' | paste -sd, - || true)
if [ "$code" -le 1 ]; then
    verdicts+=("$(printf '%-12s %s' check "RAN (exit $code): $(grep -c '^pass' "$tmp/check.txt") pass, $(grep -c '^warn' "$tmp/check.txt") warn, fails: ${fails:-none}")")
else
    failed=1
    verdicts+=("$(printf '%-12s %s' check "FAIL the check command exited with $code")")
fi
echo "interop: ${verdicts[-1]}"

echo
echo "Interop verdicts (Rapfi from $rapfi_from; tc $TC):"
printf '  %s\n' "${verdicts[@]}"
if [ -n "${KEEP:-}" ]; then echo "runs kept in $tmp"; fi
exit "$failed"
