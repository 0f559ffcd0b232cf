#!/usr/bin/env bash
# The signal campaign: RUNS runs of a GAMES-game match (pbrain-random against pbrain-faulty
# --move-ms 5, a slow opponent that takes no CPU; every third run the faulty engine also hangs at
# its 25th move and ignores END and SIGTERM) at -concurrency CONCURRENCY with every output on
# (-journal -pgn -sgf -msg -psq -sample format=bin_lz4 -log -renlib -report, openings in random
# order), each stopped at a moment drawn from its run number (0.1 to 3 s after the start, so a
# run is reproducible) by one of, in turn: SIGINT, SIGINT twice 100 ms apart, SIGTERM, SIGKILL,
# sent to the runner only, as a user's kill would. Then, for each run:
#   - the exit code is the documented one: 130 after SIGINT/SIGTERM, death by SIGKILL (137), or 0
#     when the run ended before the signal;
#   - no engine is left: the tag in the runner's environment, inherited by its engines, is found
#     in no process 3 s later (after SIGKILL the kernel kills them: a parent-death signal);
#   - the outputs are valid: every journal line parses (after SIGKILL the last one may be torn),
#     each game once; PGN, SGF, messages, samples and .psq records are what `gomoku-cli export`
#     rebuilds from the journal, byte for byte (after SIGKILL the last game may be missing or cut
#     from them: each is then a prefix of the export);
#   - the same command with -resume exits 0 and leaves exactly the schedule: games 1..GAMES once
#     each in the journal; PGN (read with python-chess when installed), SGF, messages, samples
#     and .psq records equal to the export of that journal, GAMES games each; the RenLib
#     library holds GAMES games; `samples stats` reads the samples; the report says complete;
#     and again no process is left.
# Prints one line: `signals: 24 runs (6 SIGINT, 6 double SIGINT, 6 SIGTERM, 6 SIGKILL), 24
# resumed to exactly 60 games, 0 stray processes` (with how many runs the signal stopped before
# their end), and exits non-zero when any check failed (printed above the line).
#   RUNS=24 GAMES=60 CONCURRENCY=4 bench/signals.sh   (NO_BUILD=1 to skip the release build;
#   FIRST=7 RUNS=1 to replay run 7 alone)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-24}
FIRST=${FIRST:-0}
GAMES=${GAMES:-60}
CONCURRENCY=${CONCURRENCY:-4}
[ -n "${NO_BUILD:-}" ] || cargo build --release --workspace --bins >/dev/null
R=$PWD/target/release
OPENINGS=$PWD/openings/freestyle15.txt
tmp=$(mktemp -d)
TAG_PREFIX="gcsignals-$$"

kill_tagged() {
    python3 - "$1" <<'PY' || true
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
}
cleanup() {
    for p in $(jobs -p); do kill -9 "$p" 2>/dev/null || true; done
    kill_tagged "$TAG_PREFIX"
    rm -rf "$tmp"
}
trap cleanup EXIT

cat >"$tmp/check.py" <<'PY'
"""Check a run's outputs: `stopped SIGNAL` after the stop, `final` after the resume. Prints its
problems (PROBLEM ...) and the number of processes left (STRAY n)."""
import json, os, subprocess, sys, time

mode, sig, run_dir, games, tag, runner = sys.argv[1:7]
games = int(games)
problems = []
bad = problems.append

def read(name, mode="r"):
    try:
        with open(os.path.join(run_dir, name), mode) as f:
            return f.read()
    except OSError:
        return b"" if "b" in mode else ""

# Processes first: nothing of the run may be left.
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
print(f"STRAY {len(left)}")
if left:
    bad(f"processes outlived the runner: {left}")

killed = mode == "stopped" and sig == "KILL"
text = read("j.jsonl")
lines = text.split("\n")
if lines and lines[-1] == "":
    lines.pop()
elif lines and killed:
    lines.pop()  # a torn last line: a kill in the middle of its write
entries = []
for i, l in enumerate(lines):
    try:
        entries.append(json.loads(l))
    except ValueError:
        bad(f"journal line {i + 1} does not parse: {l[:80]!r}")
if entries and entries[0].get("type") != "header":
    bad("the journal does not start with its header")
if not entries and not killed:
    bad("no journal header")
numbers = [e["game"] for e in entries[1:]]
if len(set(numbers)) != len(numbers):
    bad(f"games twice in the journal: {sorted(numbers)}")
if any(not 1 <= n <= games for n in numbers):
    bad(f"games outside the schedule: {sorted(numbers)}")
if mode == "final" and sorted(numbers) != list(range(1, games + 1)):
    bad(f"the journal holds {len(numbers)} games, not exactly 1..{games}")
print(f"GAMES {len(numbers)}")

if entries:
    for f in ["e.pgn", "e.sgf", "e.msg", "e.bin.lz4"]:
        try:
            os.remove(os.path.join(run_dir, f))
        except OSError:
            pass
    subprocess.run(["rm", "-rf", os.path.join(run_dir, "e-psq")])
    ex = subprocess.run([runner, "export", "j.jsonl", "-pgn", "e.pgn", "-sgf", "e.sgf", "-msg", "e.msg",
                         "-psq", "e-psq", "-sample", "format=bin_lz4", "file=e.bin.lz4"],
                        cwd=run_dir, capture_output=True, text=True)
    if ex.returncode != 0:
        bad(f"export failed: {ex.stderr.strip()}")
    for ran, exp in [("g.pgn", "e.pgn"), ("g.sgf", "e.sgf"), ("g.msg", "e.msg"), ("s.bin.lz4", "e.bin.lz4")]:
        a, b = read(ran, "rb"), read(exp, "rb")
        if a == b or (killed and b.startswith(a)):
            continue
        bad(f"{ran} ({len(a)} bytes) is not the export of the journal ({len(b)} bytes)")
    def psq(d):
        p = os.path.join(run_dir, d)
        names = sorted(n for n in os.listdir(p) if not n.startswith(".")) if os.path.isdir(p) else []
        return {n: open(os.path.join(p, n), "rb").read() for n in names}
    ran, exp = psq("psq"), psq("e-psq")
    missing = set(exp) - set(ran)
    if any(ran.get(n) != exp.get(n) for n in ran) or len(missing) > (1 if killed else 0):
        bad(f"psq/ ({len(ran)} records) is not the export of the journal ({len(exp)})")

if mode == "final":
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
              "message blocks": sum(1 for l in read("g.msg").splitlines() if l.startswith("Game ")),
              ".psq records": len([n for n in os.listdir(os.path.join(run_dir, "psq")) if not n.startswith(".")])}
    for what, n in counts.items():
        if n != games:
            bad(f"{n} {what}, expected {games}")
    st = subprocess.run([runner, "samples", "stats", "s.bin.lz4"], cwd=run_dir, capture_output=True, text=True)
    if st.returncode != 0:
        bad(f"samples stats: {st.stdout.strip()} {st.stderr.strip()}")
    lib = subprocess.run([runner, "lib", "stats", "g.lib", "--json"], cwd=run_dir, capture_output=True, text=True)
    archived = json.loads(lib.stdout).get("games", 0) if lib.returncode == 0 else 0
    if archived != games:
        bad(f"g.lib holds {archived} games, expected {games}")
    if f"complete: {games} of {games} games" not in read("r.html"):
        bad("r.html does not say the run is complete")
for p in problems:
    print(f"PROBLEM {p}")
PY

names=(INT INT2 TERM KILL)
declare -A count=([INT]=0 [INT2]=0 [TERM]=0 [KILL]=0)
resumed=0 stray=0 midrun=0 failed=0
for ((i = FIRST; i < FIRST + RUNS; i++)); do
    kind=${names[$((i % 4))]}
    count[$kind]=$((count[$kind] + 1))
    RANDOM=$((i + 1))
    delay_ms=$((100 + RANDOM % 2901))
    faulty="cmd=$R/pbrain-faulty --move-ms 5 --seed $((2 * i + 2))"
    [ $((i % 3)) -ne 2 ] || faulty="$faulty --hang-at 25 --ignore-end"
    dir="$tmp/run-$i"
    mkdir -p "$dir"
    args=(-engine "cmd=$R/pbrain-random --seed $((2 * i + 1))" name=random -engine "$faulty" name=faulty
        -each tc=0/0.5 tolerance=0.5 -games "$GAMES" -repeat -concurrency "$CONCURRENCY"
        -openings "file=$OPENINGS" type=pos order=random "srand=$((i + 1))"
        -journal j.jsonl -pgn g.pgn -sgf g.sgf -msg g.msg -psq psq -sample format=bin_lz4 file=s.bin.lz4
        -log -logdir log -renlib g.lib -report r.html -quiet -noprogress)
    tag="$TAG_PREFIX-$i"
    (cd "$dir" && exec env GOMOKU_CLI_TEST_TAG="$tag" "$R/gomoku-cli" "${args[@]}" </dev/null >out.txt 2>err.txt) &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    case $kind in
    INT) kill -INT "$pid" 2>/dev/null || true ;;
    INT2) kill -INT "$pid" 2>/dev/null || true; sleep 0.1; kill -INT "$pid" 2>/dev/null || true ;;
    TERM) kill -TERM "$pid" 2>/dev/null || true ;;
    KILL) kill -KILL "$pid" 2>/dev/null || true ;;
    esac
    code=0
    # (bash would report the SIGKILLed job on standard error.)
    { wait "$pid"; } 2>/dev/null || code=$?
    problems=()
    if grep -qx "Finished $GAMES of $GAMES games" "$dir/out.txt"; then
        want=0 # the run ended before the signal
    else
        midrun=$((midrun + 1))
        want=$([ "$kind" = KILL ] && echo 137 || echo 130)
    fi
    [ "$code" = "$want" ] || problems+=("exit code $code, expected $want")
    sig=$([ "$kind" = KILL ] && echo KILL || echo OTHER)
    out=$(python3 "$tmp/check.py" stopped "$sig" "$dir" "$GAMES" "$tag" "$R/gomoku-cli" 2>&1) || problems+=("checker failed: $out")
    s=$(sed -n 's/^STRAY //p' <<<"$out")
    stray=$((stray + ${s:-0}))
    played=$(sed -n 's/^GAMES //p' <<<"$out")
    while IFS= read -r p; do problems+=("after the stop: $p"); done < <(sed -n 's/^PROBLEM //p' <<<"$out")
    kill_tagged "$tag"
    # The same command, resumed.
    code=0
    (cd "$dir" && exec env GOMOKU_CLI_TEST_TAG="$tag" "$R/gomoku-cli" "${args[@]}" -resume </dev/null >out2.txt 2>err2.txt) || code=$?
    [ "$code" = 0 ] || problems+=("resume: exit code $code: $(tail -3 "$dir/err2.txt")")
    out=$(python3 "$tmp/check.py" final - "$dir" "$GAMES" "$tag" "$R/gomoku-cli" 2>&1) || problems+=("checker failed: $out")
    s=$(sed -n 's/^STRAY //p' <<<"$out")
    stray=$((stray + ${s:-0}))
    while IFS= read -r p; do problems+=("after the resume: $p"); done < <(sed -n 's/^PROBLEM //p' <<<"$out")
    kill_tagged "$tag"
    if [ ${#problems[@]} -eq 0 ]; then
        resumed=$((resumed + 1))
    else
        failed=1
        for p in "${problems[@]}"; do echo "run $i ($kind after ${delay_ms} ms, $played games): $p"; done
    fi
    if [ -n "${VERBOSE:-}" ]; then
        echo "run $i: $kind after ${delay_ms} ms: $played games before, exit $want" >&2
    fi
    rm -rf "$dir"
done
echo "signals: $RUNS runs (${count[INT]} SIGINT, ${count[INT2]} double SIGINT, ${count[TERM]} SIGTERM, ${count[KILL]} SIGKILL; $midrun stopped mid-run), $resumed resumed to exactly $GAMES games, $stray stray processes"
exit "$failed"
