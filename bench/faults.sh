#!/usr/bin/env bash
# The fault matrix at scale (tests/it/e2e_fault_matrix.rs is the CI version: 2 games a cell, one
# slot). pbrain-faulty misbehaves with `--fault PHASE:KIND` in every way (crash, abort,
# silent-exit, hang, late, garbage, error, huge-line, exit-after; illegal and offboard at moves;
# and huge-message, a 1 MiB MESSAGE before the answer, which must change nothing) at every
# phase (about, start, restart, move1, move3 and move12 in the game, end), listed first and
# second, against pbrain-random; each cell is a run of GAMES games at -concurrency CONCURRENCY
# with every output on. Each cell checks:
#   - exit code 0; every game in the journal once (GAMES in all, after its header);
#   - each game ends as README's table of faults says: the faulty engine loses with the right
#     termination and reason after exactly the moves it made before the fault, or the game is
#     untouched (RESTART faults strike in a slot's later games; a fault at move12 only in games
#     that get that far);
#   - PGN (read with python-chess when installed), SGF, messages, .psq records and samples are
#     what `gomoku-cli export` rebuilds from the journal, byte for byte, GAMES games each;
#     `samples stats` reads the samples; the RenLib library holds every game with a stone; the
#     report says the run is complete;
#   - no process of the run is left (each runner's engines carry a tag in their environment,
#     inherited by the `sleep` each faulty engine spawns);
#   - the runner's open file descriptors just before and after the run are the same
#     (GOMOKU_CLI_DEBUG_FDS).
# Prints one line, `faults: N cells, N passed, 0 stray processes, fds before=X after=X`, and
# exits non-zero when any cell failed (its problems are printed above the line).
#   GAMES=20 CONCURRENCY=4 JOBS=4 bench/faults.sh   (NO_BUILD=1 to skip the release build;
#   PHASES="start move3" KINDS="crash hang" to run part of the matrix)
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-20}
CONCURRENCY=${CONCURRENCY:-4}
JOBS=${JOBS:-4}
PHASES=${PHASES:-"about start restart move1 move3 move12 end"}
KINDS=${KINDS:-"crash abort silent-exit hang late garbage error huge-line huge-message exit-after illegal offboard"}
[ -n "${NO_BUILD:-}" ] || cargo build --release --workspace --bins >/dev/null
R=$PWD/target/release
tmp=$(mktemp -d)
TAG_PREFIX="gcfaults-$$"

# Leftovers of an interrupted run (engines of cells still running) die with the script.
cleanup() {
    for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
    python3 - "$TAG_PREFIX" <<'PY' || true
import os, sys, signal
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        continue
    if any(e.startswith(b"GOMOKU_CLI_TEST_TAG=" + sys.argv[1].encode()) for e in env):
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
PY
    rm -rf "$tmp"
}
trap cleanup EXIT

cat >"$tmp/check.py" <<'PY'
"""Check one cell of the fault matrix; print its problems, one a line (nothing when it passed)."""
import json, os, re, subprocess, sys, time

cell_dir, phase, kind, first, games, code, tag, runner = sys.argv[1:9]
faulty_index = 0 if first == "1" else 1
games = int(games)
problems = []
bad = problems.append

def read(name, mode="r"):
    try:
        with open(os.path.join(cell_dir, name), mode) as f:
            return f.read()
    except OSError:
        return b"" if "b" in mode else ""

def exited(k):
    return {"crash": "(exit status 3)", "abort": "(SIGABRT)"}.get(k, "(exit status 0)")

def expected(colour):
    """(termination, reason text, faulty stones) of a game the fault strikes; None: untouched."""
    if kind == "huge-message":
        return None
    if phase == "about":
        if kind in ("crash", "abort", "silent-exit"):
            return ("failed_start", exited(kind), 0)
        if kind in ("hang", "late"):
            return ("failed_start", "did not answer INFO and ABOUT", 0)
        if kind in ("garbage", "error", "huge-line"):
            return None
        return ("crash", "(exit status 0)", 0)
    if phase in ("start", "restart"):
        command = "START 15" if phase == "start" else "RESTART"
        if kind in ("crash", "abort", "silent-exit"):
            return ("failed_start", exited(kind), 0)
        if kind in ("hang", "late", "garbage", "huge-line"):
            return ("failed_start", f"did not answer {command}", 0)
        if kind == "error":
            return ("failed_start", "ERROR cannot start", 0) if phase == "start" else None
        return ("failed_start", "crashed (exit status 0)", 0)
    if phase == "end":
        return None
    n = int(phase[4:])
    if kind in ("crash", "abort", "silent-exit"):
        return ("crash", exited(kind), n - 1)
    if kind in ("hang", "late"):
        return ("time_forfeit", "loses on time", n - 1)
    if kind == "error":
        return ("engine_error", f'answered "ERROR pbrain-faulty: a fault at Move({n})" instead', n - 1)
    if kind == "garbage":
        return ("illegal_move", 'unparsable move "hello world"', n - 1)
    if kind == "huge-line":
        return ("illegal_move", 'unparsable move "' + "x" * 200 + '…"', n - 1)
    if kind == "exit-after":
        return ("crash", "(exit status 0)", n)
    if kind == "illegal" and n == 1 and colour == "black":
        return ("illegal_move", "15,15 (off the board)", 0)
    if kind == "illegal":
        return ("illegal_move", "(occupied point)", n - 1)
    return ("illegal_move", "15,15 (off the board)", n - 1)

if code != "0":
    bad(f"exit code {code}")
err = read("err.txt")
m = re.search(r"debug: open file descriptors: (\d+) before the run, (\d+) after it", err)
if not m:
    bad("no descriptor count on stderr")
elif m.group(1) != m.group(2):
    bad(f"open file descriptors: {m.group(1)} before the run, {m.group(2)} after it")

lines = read("j.jsonl").splitlines()
try:
    entries = [json.loads(l) for l in lines]
except ValueError as e:
    entries = []
    bad(f"journal line does not parse: {e}")
if not entries or entries[0].get("type") != "header":
    bad("journal does not start with its header")
rows = entries[1:]
numbers = sorted(g.get("game") for g in rows)
if numbers != list(range(1, games + 1)):
    bad(f"journal games {numbers}, expected 1..{games}")

struck = untouched = 0
for g in rows:
    colour = "black" if g["black_engine"] == faulty_index else "white"
    term, reason, moves = g["termination"], g["reason"], g["moves"]
    stones = len(re.findall(r"[a-z]\d+", moves))
    faulty_stones = (stones + (1 if colour == "black" else 0)) // 2
    if len(g[colour]) > 65:
        bad(f"game {g['game']}: a name of {len(g[colour])} characters")
    exp = expected(colour)
    lost = "0-1" if colour == "black" else "1-0"
    normal = term in ("five", "full_board")
    hit = exp is not None and term == exp[0] and g["result"] == lost and \
        reason.startswith(colour) and exp[1] in reason and faulty_stones == exp[2]
    if hit:
        struck += 1
    elif normal:
        untouched += 1
        # A move fault strikes in every game that gets to that move (exit-after: to the next).
        if exp is not None and phase.startswith("move") and faulty_stones > exp[2]:
            bad(f"game {g['game']}: untouched after {faulty_stones} moves of the faulty engine: {reason}")
    elif phase == "move12" and kind == "exit-after" and term == "failed_start" \
            and g["result"] == lost and "crashed (exit status 0)" in reason:
        # Its 12th move ended the game: the engine is found gone at the next game's RESTART.
        struck += 1
    else:
        bad(f"game {g['game']}: {g['result']} {term} {reason[:160]!r}, faulty engine {colour}, "
            f"{faulty_stones} moves; expected {exp}")
# Where the fault always strikes, every game shows it; RESTART faults strike in a slot's later
# games only, so both kinds of game are there.
always = phase in ("about", "start", "move1", "move3")
if expected("black") is None or expected("white") is None:
    if struck:
        bad(f"{struck} games struck by a fault that touches no game")
elif always and untouched:
    bad(f"{untouched} games untouched by the fault")
elif phase == "restart" and (struck == 0 or untouched == 0):
    bad(f"restart: {struck} games struck, {untouched} untouched (expected both)")

# Records: the export of the journal, byte for byte, GAMES games each.
subprocess.run(["rm", "-rf"] + [os.path.join(cell_dir, f) for f in ["e.pgn", "e.sgf", "e.msg", "e.bin.lz4", "e-psq"]])
ex = subprocess.run([runner, "export", "j.jsonl", "-pgn", "e.pgn", "-sgf", "e.sgf", "-msg", "e.msg",
                     "-psq", "e-psq", "-sample", "format=bin_lz4", "file=e.bin.lz4"],
                    cwd=cell_dir, capture_output=True, text=True)
if ex.returncode != 0:
    bad(f"export failed: {ex.stderr.strip()}")
for ran, exp in [("g.pgn", "e.pgn"), ("g.sgf", "e.sgf"), ("g.msg", "e.msg"), ("s.bin.lz4", "e.bin.lz4")]:
    if read(ran, "rb") != read(exp, "rb"):
        bad(f"{ran} differs from its export")
def psq(d):
    p = os.path.join(cell_dir, d)
    names = sorted(n for n in os.listdir(p) if not n.startswith(".")) if os.path.isdir(p) else []
    return [(n, open(os.path.join(p, n), "rb").read()) for n in names]
if len(psq("psq")) != games or psq("psq") != psq("e-psq"):
    bad(f"psq/ holds {len(psq('psq'))} records, not the export's")
try:
    import chess.pgn, io
    f, pgn_games = io.StringIO(read("g.pgn")), 0
    while (pg := chess.pgn.read_game(f)) is not None:
        if pg.errors:
            bad(f"PGN errors: {pg.errors}")
        pgn_games += 1
except ImportError:
    pgn_games = read("g.pgn").count("[GameId ")
counts = {"PGN games": pgn_games, "SGF games": read("g.sgf").count("(;FF[4]"),
          "message blocks": sum(1 for l in read("g.msg").splitlines() if l.startswith("Game "))}
for what, n in counts.items():
    if n != games:
        bad(f"{n} {what}, expected {games}")
st = subprocess.run([runner, "samples", "stats", "s.bin.lz4"], cwd=cell_dir, capture_output=True, text=True)
if st.returncode != 0:
    bad(f"samples stats: {st.stdout.strip()} {st.stderr.strip()}")
with_stones = sum(1 for g in rows if g["moves"] or g["opening"])
lib = subprocess.run([runner, "lib", "stats", "g.lib", "--json"], cwd=cell_dir, capture_output=True, text=True)
archived = json.loads(lib.stdout).get("games", 0) if lib.returncode == 0 else 0
if archived != with_stones:
    bad(f"g.lib holds {archived} games, expected {with_stones}")
if f"complete: {games} of {games} games" not in read("r.html"):
    bad("r.html does not say the run is complete")

# Processes of the run: the tag is in every engine's environment (and its children's).
deadline = time.time() + 3
while True:
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
            state = open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if f"GOMOKU_CLI_TEST_TAG={tag}".encode() in env and state != "Z":
            left.append(pid)
    if not left or time.time() > deadline:
        break
    time.sleep(0.05)
if left:
    print(f"STRAY {len(left)}")
    bad(f"processes outlived the run: {left}")
    for pid in left:
        try:
            os.kill(int(pid), 9)
        except OSError:
            pass
if m:
    print(f"FDS {m.group(1)} {m.group(2)}")
for p in problems:
    print(f"PROBLEM {p}")
PY

# One cell: the run, then its check; the check's output goes to $dir/check.txt.
cell() {
    local phase=$1 kind=$2 first=$3 seed=$4
    local dir="$tmp/$phase-$kind-$first" tag="$TAG_PREFIX-$phase-$kind-$first"
    mkdir -p "$dir"
    local faulty="cmd=$R/pbrain-faulty --fault $phase:$kind --late-ms 5000 --spawn-child --seed $seed"
    local random="cmd=$R/pbrain-random --seed $seed"
    # Short limits only where the fault must wait one out (2 s to start; a move lost on time after
    # 0.5 s + 1 s), long ones elsewhere, so a slow answer on a loaded machine decides nothing.
    local startup=30 tolerance=tolerance=30
    case $phase:$kind in
    about:hang | about:late | start:hang | start:late | start:garbage | start:huge-line | \
        restart:hang | restart:late | restart:garbage | restart:huge-line) startup=2 ;;
    move*:hang | move*:late) tolerance=tolerance=1 ;;
    esac
    local engines
    if [ "$first" = 1 ]; then
        engines=(-engine "$faulty" "$tolerance" -engine "$random" name=random)
    else
        engines=(-engine "$random" name=random -engine "$faulty" "$tolerance")
    fi
    local code=0
    (cd "$dir" && GOMOKU_CLI_TEST_TAG=$tag GOMOKU_CLI_DEBUG_FDS=1 "$R/gomoku-cli" "${engines[@]}" \
        -each tc=0/0.5 tolerance=30 -games "$GAMES" -concurrency "$CONCURRENCY" -startuptimeout "$startup" \
        -journal j.jsonl -pgn g.pgn -sgf g.sgf -msg g.msg -psq psq -sample format=bin_lz4 file=s.bin.lz4 \
        -log -logdir log -renlib g.lib -report r.html -quiet -noprogress \
        </dev/null >out.txt 2>err.txt) || code=$?
    python3 "$tmp/check.py" "$dir" "$phase" "$kind" "$first" "$GAMES" "$code" "$tag" "$R/gomoku-cli" \
        >"$dir/check.txt" 2>&1 || echo "PROBLEM checker failed" >>"$dir/check.txt"
}

cells=()
seed=1
for phase in $PHASES; do
    for kind in $KINDS; do
        case $kind in illegal | offboard) [[ $phase == move* ]] || continue ;; esac
        for first in 1 0; do
            cells+=("$phase $kind $first $seed")
            seed=$((seed + 1))
        done
    done
done
running=0
for c in "${cells[@]}"; do
    # shellcheck disable=SC2086
    cell $c &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

passed=0 stray=0 before="" after="" failed=0
for c in "${cells[@]}"; do
    read -r phase kind first _ <<<"$c"
    out="$tmp/$phase-$kind-$first/check.txt"
    if grep -q '^PROBLEM' "$out"; then
        failed=1
        order=$([ "$first" = 1 ] && echo first || echo second)
        sed -n "s/^PROBLEM /$phase:$kind ($order): /p" "$out"
    else
        passed=$((passed + 1))
    fi
    s=$(sed -n 's/^STRAY //p' "$out")
    stray=$((stray + ${s:-0}))
    read -r b a <<<"$(sed -n 's/^FDS //p' "$out")"
    before="$before ${b:-?}" after="$after ${a:-?}"
done
span() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -u | paste -sd/ -; }
echo "faults: ${#cells[@]} cells, $passed passed, $stray stray processes, fds before=$(span "$before") after=$(span "$after")"
exit "$failed"
