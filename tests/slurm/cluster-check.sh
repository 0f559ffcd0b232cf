#!/usr/bin/env bash
# cluster-check.sh - the sharded SPRT run on a real SLURM job array, checked end to end.
#
# Usage (as root, from anywhere):  bash tests/slurm/cluster-check.sh [--dry-run]
#
# 1. brings up a single-node SLURM with ../shared/tools/slurm-localhost.sh (`up`), and tears it
#    down on any exit (`down`: only the daemons that tool started);
# 2. submits examples/slurm/sprt-array.sh three times as a 4-task array with `sbatch --wait`,
#    each into a fresh run directory, with the debug binaries (the CI test command builds them),
#    one game at a time per task, shards synchronised every second:
#      h1   pbrain-scout depth 5 against depth 3, -sprt elo0=0 elo1=20: H1, exit code 0;
#      h0   pbrain-random against itself, alpha=0.001: H0, exit code 3 (fast games: the shards'
#           views lag hundreds of games behind each other);
#      all  no SPRT, 40 games of scout depth 3 against 2, compared game by game with the same
#           run played unsharded (fixed-depth scout is deterministic);
#      tune examples/slurm/tune-array.sh: one SPSA tuning of 24 iterations over the array
#           (checks in tune_array below).
#    The node has 2 cores: tasks 1 and 2 play together; 3 and 4 start when they end, after the
#    stop (and exit at once) or to play their parts;
# 3. checks each run with tests/slurm/check_run.py: every task's exit code is the verdict's, or 0
#    for a task that played its whole part before the stop (codes from marker files the job
#    script writes, RUNDIR/slurm/task-K.json: this cluster has no accounting storage, so `sacct`
#    answers "Slurm accounting storage is disabled"), and `sbatch --wait` returns the highest;
#    the merged game numbers are unique, each shard's are its part of the schedule, and they are
#    exactly 1..total or, after an SPRT stop, no game started after sprt-stop.json was written
#    (its `written` time, 100 ms slack) and at most the games in flight ended after it;
#    `gomoku-cli merge RUNDIR --json` equals `gomoku-cli sprt --json` over the same journals
#    (llr within 1e-9, verdict, counts, crossing) and its verdict is the stop marker's; every
#    task that prints a verdict prints the marker's crossing (games, game number, LLR).
#
# --dry-run (or CLUSTER_CHECK_DRY_RUN=1): the job script runs `true` instead of gomoku-cli
# (GOMOKU_DRY_RUN=1), so only bring-up, submission, task markers and teardown are checked.
#
# Environment: SHARED (default REPO/../shared), BIN (default REPO/target/debug),
# CLUSTER_CHECK_KEEP=1 keeps the run directory, CLUSTER_CHECK_TIMEOUT (s, default 600).
# The last line printed is always `N passed, N failed`; the exit code is 1 when anything failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SHARED=${SHARED:-$REPO/../shared}
TOOL=$SHARED/tools/slurm-localhost.sh
BIN=${BIN:-$REPO/target/debug}
DRY_RUN=${CLUSTER_CHECK_DRY_RUN:-}
[ "${1:-}" = --dry-run ] && DRY_RUN=1
TIMEOUT=${CLUSTER_CHECK_TIMEOUT:-600}
SHARDS=4
CONCURRENCY=1

passed=0 failed=0 slurm_up=0 done_=0 WORK=
T0=$(date +%s.%N)

say() { printf '[cluster-check %s] %s\n' "$(date +%T)" "$*"; }
ok() { passed=$((passed + 1)); echo "ok - $*"; }
fail() { failed=$((failed + 1)); echo "FAIL - $*"; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }

finish() {
  local rc=$?
  trap - EXIT INT TERM
  [ "$done_" = 1 ] || [ "$rc" = 0 ] || [ "$failed" -gt 0 ] || fail "the check stopped early (exit $rc)"
  if [ "$slurm_up" = 1 ]; then
    local t; t=$(date +%s.%N)
    if bash "$TOOL" down; then say "SLURM down in $(since "$t") s"; else fail "slurm-localhost.sh down"; fi
  fi
  if [ -n "$WORK" ]; then
    if [ "$failed" = 0 ] && [ -z "${CLUSTER_CHECK_KEEP:-}" ]; then rm -rf "$WORK"; else say "kept $WORK"; fi
  fi
  say "total $(since "$T0") s"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit $?
}
trap finish EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ preflight
[ "$(id -u)" = 0 ] || { fail "run as root (slurm-localhost.sh starts the daemons)"; exit 1; }
[ -f "$TOOL" ] || { fail "$TOOL is missing"; exit 1; }
command -v python3 >/dev/null || { fail "python3 is missing"; exit 1; }
if [ -z "$DRY_RUN" ]; then
  for b in gomoku-cli pbrain-scout; do
    [ -x "$BIN/$b" ] || { fail "$BIN/$b is not built (cargo build --workspace --bins)"; exit 1; }
  done
  # The sharding feature: fail with a clear message rather than with 4 usage errors.
  if ! "$BIN/gomoku-cli" merge --help >/dev/null 2>&1; then
    fail "$BIN/gomoku-cli has no merge subcommand: not the sharding build (--dry-run checks the SLURM side only)"
    exit 1
  fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gomoku-cluster-check.XXXXXX")   # fresh run directories below

# ------------------------------------------------------------------ SLURM up
t=$(date +%s.%N)
slurm_up=1                       # from here on, `down` runs on exit (it stops only what `up` started)
if bash "$TOOL" up; then
  ok "SLURM up in $(since "$t") s"
else
  fail "slurm-localhost.sh up"; exit 1
fi

# ------------------------------------------------------------------ the array jobs
# run_array NAME NEW_CMD OLD_CMD SPRT GAMES [REFERENCE]: one submission of the example into
# WORK/NAME, then its checks (against REFERENCE, a journal of the same run unsharded, if given).
run_array() {
  local name=$1 new_cmd=$2 old_cmd=$3 sprt=$4 games=$5 reference=${6:-}
  local rundir=$WORK/$name/run logdir=$WORK/$name/logs t rc f out py_rc
  mkdir -p "$logdir"
  say "$name: $new_cmd against $old_cmd, -sprt $sprt, run directory $rundir${DRY_RUN:+ (dry run: true instead of gomoku-cli)}"
  t=$(date +%s.%N)
  env REPO="$REPO" BIN="$BIN" RUNDIR="$rundir" SHARDS="$SHARDS" CONCURRENCY="$CONCURRENCY" \
    SYNC_INTERVAL=1 NEW_NAME=new NEW_CMD="$new_cmd" NEW_OPTS= OLD_NAME=old OLD_CMD="$old_cmd" \
    OLD_OPTS= EACH='tc=0/5' OPENINGS="file=$REPO/openings/freestyle15.txt type=pos" RULE=0 \
    BOARDSIZE=15 GAMES="$games" SPRT="$sprt" EXTRA="-pgn $rundir/games.pgn -quiet -noprogress" \
    GOMOKU_DRY_RUN="$DRY_RUN" \
    timeout "$TIMEOUT" sbatch --wait --array=1-$SHARDS --cpus-per-task=$CONCURRENCY \
      --time=$(( (TIMEOUT + 59) / 60 )) --job-name="cluster-check-$name" --chdir="$REPO" \
      --output="$logdir/%A_%a.out" "$REPO/examples/slurm/sprt-array.sh"
  rc=$?
  say "$name: sbatch --wait exited $rc after $(since "$t") s"
  if [ "$rc" = 124 ]; then
    fail "$name: the array job did not end within $TIMEOUT s"
    scancel --quiet --name="cluster-check-$name" 2>/dev/null
  fi
  for f in "$logdir"/*.out; do
    [ -f "$f" ] || continue
    echo "--- $name: $(basename "$f") (last lines)"; tail -n 12 "$f"
  done
  local args=(--rundir "$rundir" --shards "$SHARDS" --concurrency "$CONCURRENCY" --sprt "$sprt"
              --sbatch-rc "$rc" --logdir "$logdir" --cli "$BIN/gomoku-cli")
  [ -n "$DRY_RUN" ] && args+=(--dry-run)
  [ -n "$reference" ] && args+=(--reference "$reference")
  out=$(python3 "$REPO/tests/slurm/check_run.py" "${args[@]}" 2>&1)
  py_rc=$?
  sed "s/^\(ok\|FAIL\) - /\1 - $name: /" <<<"$out"
  passed=$((passed + $(grep -c '^ok - ' <<<"$out")))
  failed=$((failed + $(grep -c '^FAIL - ' <<<"$out")))
  [ "$py_rc" = 0 ] || fail "$name: check_run.py crashed (exit $py_rc)"
}

# ------------------------------------------------------------------ a tuning on the array
# tune_array: examples/slurm/tune-array.sh as a 4-task array, 24 iterations of pbrain-scout's two
# weights; checked: every task exits 0 and prints the tuned values last, the shards' games are
# exactly 1..48 once each, each shard plays whole iterations of its own (k ≡ shard mod 4), and
# the shards tune one θ: the shard that started last applied the iterations of every shard that
# had ended before it started (its CSV holds them).
tune_array() {
  local rundir=$WORK/tune/run logdir=$WORK/tune/logs t rc out
  mkdir -p "$logdir"
  say "tune: 24 iterations of pbrain-scout's weights on a $SHARDS-task array, run directory $rundir"
  t=$(date +%s.%N)
  env REPO="$REPO" BIN="$BIN" RUNDIR="$rundir" SHARDS="$SHARDS" CONCURRENCY="$CONCURRENCY" \
    SYNC_INTERVAL=1 ENGINE_OPTS='depth=2 tc=0/5' ITERATIONS=24 \
    PARAMS="$REPO/examples/slurm/scout.params" \
    timeout "$TIMEOUT" sbatch --wait --array=1-$SHARDS --cpus-per-task=$CONCURRENCY \
      --time=$(( (TIMEOUT + 59) / 60 )) --job-name=cluster-check-tune --chdir="$REPO" \
      --output="$logdir/%A_%a.out" "$REPO/examples/slurm/tune-array.sh"
  rc=$?
  say "tune: sbatch --wait exited $rc after $(since "$t") s"
  [ "$rc" = 0 ] && ok "tune: every task exited 0" || fail "tune: sbatch --wait exited $rc"
  out=$(python3 - "$rundir" "$logdir" "$SHARDS" <<'PY'
import csv, glob, json, os, sys
rundir, logdir, shards = sys.argv[1], sys.argv[2], int(sys.argv[3])
games, ends, seen = [], {}, {}
for k in range(1, shards + 1):
    path = f"{rundir}/shard-{k}-of-{shards}.journal.jsonl"
    lines = [json.loads(l) for l in open(path) if l.strip()]
    own = [l for l in lines if "game" in l]
    bad = [l["tune"]["it"] for l in own if (l["tune"]["it"] - 1) % shards != k - 1]
    print(("ok" if not bad else "FAIL") + f" - shard {k} plays only its own iterations ({len(own)} games)")
    done = [l for l in own if l["tune"].get("done")]
    print(("ok" if len(done) * 2 == len(own) else "FAIL") + f" - shard {k} completed whole iterations ({len(done)})")
    games += [l["game"] for l in own]
    ends[k] = (min(l["started"] for l in own), max(l["ended"] for l in own))
    with open(f"{rundir}/shard-{k}-of-{shards}.tune.csv") as f:
        seen[k] = {int(r["iteration"]) for r in csv.DictReader(f)}
ok = sorted(games) == list(range(1, 49))
print(("ok" if ok else "FAIL") + f" - the shards' games are 1..48 once each ({len(games)})")
# The shard that started last: every shard that had ended by then was read when it started.
last = max(ends, key=lambda k: ends[k][0])
before = [k for k in ends if k != last and ends[k][1] < ends[last][0]]
others = {it for k in before for it in seen[k] if (it - 1) % shards == k - 1}
missing = sorted(others - seen[last])
print(("ok" if len(seen[last]) > 24 // shards and not missing else "FAIL")
      + f" - shard {last} applied {len(seen[last])} iterations: its own and those of shards {before}, ended before it started (missing {missing})")
for f in sorted(glob.glob(f"{logdir}/*.out")):
    tail = open(f).read().strip().splitlines()[-3:]
    good = any(l.startswith("eval_four, ") for l in tail)
    print(("ok" if good else "FAIL") + f" - {os.path.basename(f)} prints the tuned values last")
PY
)
  echo "$out" | sed 's/^\(ok\|FAIL\) - /\1 - tune: /'
  passed=$((passed + $(grep -c '^ok - ' <<<"$out")))
  failed=$((failed + $(grep -c '^FAIL - ' <<<"$out")))
}

# H1: depth 5 against depth 3 decides after about 140 games, ~8 s of play on 2 cores.
run_array h1 '{BIN}/pbrain-scout --depth 5' '{BIN}/pbrain-scout --depth 3' 'elo0=0 elo1=20' 2000
if [ -z "$DRY_RUN" ]; then
  # H0 (exit code 3): an engine against itself, 300-1400 games of milliseconds (8000: room for a
  # slow decision). alpha=0.001 keeps H1 rare; whatever the verdict, the checks compare the exit
  # codes with the stop marker's.
  run_array h0 '{BIN}/pbrain-random' '{BIN}/pbrain-random' 'elo0=0 elo1=20 alpha=0.001' 8000
  # No SPRT: the 4 shards play all 40 games, and they are the games of the same run played
  # unsharded here first (pbrain-scout at a fixed depth is deterministic).
  mkdir -p "$WORK/all"
  t=$(date +%s.%N)
  "$BIN/gomoku-cli" -engine "cmd=$BIN/pbrain-scout --depth 3" name=new \
    -engine "cmd=$BIN/pbrain-scout --depth 2" name=old -each tc=0/5 -rule 0 -boardsize 15 \
    -games 40 -repeat -openings "file=$REPO/openings/freestyle15.txt" type=pos -concurrency 2 \
    -journal "$WORK/all/unsharded.jsonl" -quiet -noprogress -ratinginterval 0 > "$WORK/all/unsharded.out" 2>&1 \
    || fail "all: the unsharded reference run (exit $?): $(tail -3 "$WORK/all/unsharded.out")"
  say "all: the unsharded reference run took $(since "$t") s"
  run_array all '{BIN}/pbrain-scout --depth 3' '{BIN}/pbrain-scout --depth 2' '' 40 "$WORK/all/unsharded.jsonl"
  tune_array
fi
done_=1
