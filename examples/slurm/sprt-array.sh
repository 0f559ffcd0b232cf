#!/bin/bash
# sprt-array.sh - an SPRT test of two engines split over a SLURM job array, one shard per task.
#
# Submit from the repository root (or set REPO):
#   sbatch examples/slurm/sprt-array.sh                 # tasks 1-4 = shards 1/4 .. 4/4
#   sbatch --array=3 examples/slurm/sprt-array.sh -resume   # task 3 again, continuing its journal
# Arguments after the script name are appended to gomoku-cli's command line.
# Walk-through: examples/slurm/README.md.
#
# Task K plays shard K of SHARDS of one run in RUNDIR (its journal RUNDIR/shard-K-of-N.journal.jsonl).
# The shards read each other's journals in RUNDIR every SYNC_INTERVAL seconds; when the combined
# SPRT decides, every shard stops starting games, finishes the ones in flight and exits with the
# verdict's exit code (0 = H1 accepted, 3 = H0 accepted). RUNDIR must be on a filesystem every
# node of the cluster sees. Watch and read the result with `gomoku-cli merge RUNDIR`.
#
#SBATCH --job-name=gomoku-sprt
#SBATCH --array=1-4
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=%x-%A_%a.out
#SBATCH --time=02:00:00
#
# --array must be 1-SHARDS (below): the task id is the shard number. --cpus-per-task is the
# number of games a task plays at once (CONCURRENCY defaults to it): each game is two engine
# processes that move in turn, so one core per game (multi-threaded engines: thread=T and T cores).
#
# -------------------------------------------------------------------------------------------
# Edit these. Each may also be given in the environment of sbatch (sbatch exports it to the
# tasks): RUNDIR=runs/mytest sbatch examples/slurm/sprt-array.sh
# -------------------------------------------------------------------------------------------
REPO=${REPO:-${SLURM_SUBMIT_DIR:-$PWD}}     # the gomoku-cli checkout (openings/, target/)
BIN=${BIN:-}                                # gomoku-cli and the bundled engines; empty: target/release
                                            # if built there, else target/debug
SHARDS=${SHARDS:-4}                         # = the last index of --array=1-SHARDS
RUNDIR=${RUNDIR:-$REPO/runs/scout-d7-vs-d5} # one directory per test; a new test needs a new one
CONCURRENCY=${CONCURRENCY:-${SLURM_CPUS_PER_TASK:-1}}   # games at once per task
SYNC_INTERVAL=${SYNC_INTERVAL:-2}           # seconds between reads of the other shards' journals

# The engines: the one under test first (the SPRT's point of view), then the reference.
# Defaults: the bundled pbrain-scout at depth 7 against depth 5 (H1 after about 130 games: about
# a minute on 2 cores).
# For an H0 example: NEW_CMD='{BIN}/pbrain-random' OLD_CMD='{BIN}/pbrain-random' and
# SPRT='elo0=0 elo1=20 alpha=0.001' (300-1400 games, seconds in all).
NEW_NAME=${NEW_NAME:-deep}
NEW_CMD=${NEW_CMD:-'{BIN}/pbrain-scout --depth 7'}   # {BIN} is replaced by the binaries' directory
NEW_OPTS=${NEW_OPTS-}                               # more -engine options: option.K=V thread=2 ...
OLD_NAME=${OLD_NAME:-shallow}
OLD_CMD=${OLD_CMD:-'{BIN}/pbrain-scout --depth 5'}
OLD_OPTS=${OLD_OPTS-}
EACH=${EACH:-'tc=0/5'}                               # -each: options of both engines

OPENINGS=${OPENINGS:-"file=$REPO/openings/freestyle15.txt type=pos"}
RULE=${RULE:-0}
BOARDSIZE=${BOARDSIZE:-15}
GAMES=${GAMES:-2000}                        # the cap: games of the whole run (all shards), -repeat pairs
SPRT=${SPRT-'elo0=0 elo1=20'}              # -sprt arguments; empty: no SPRT, every game is played
EXTRA=${EXTRA-"-pgn $RUNDIR/games.pgn -quiet -noprogress"}   # any other run options
# -------------------------------------------------------------------------------------------

set -uo pipefail

TASK=${SLURM_ARRAY_TASK_ID:?run this with sbatch --array=1-$SHARDS (or set SLURM_ARRAY_TASK_ID)}
SHARD="$TASK/$SHARDS"
MARKERS="$RUNDIR/slurm"                     # one task-K.json per task: exit code and times
cd "$REPO" || exit 1                        # relative paths (RUNDIR, EXTRA) are the repository's

now() { date -u +%Y-%m-%dT%H:%M:%S.%NZ; }
STARTED=$(now)

# The task's end, for scripts and for sacct-less clusters: RUNDIR/slurm/task-K.json, written
# atomically (a temporary file renamed over it) with the exit code of gomoku-cli.
write_marker() {
  local rc=$1 tmp="$MARKERS/.task-$TASK.json.$$"
  mkdir -p "$MARKERS" 2>/dev/null || return 0
  printf '{"task":%s,"shard":"%s","exit":%s,"job":"%s","host":"%s","started":"%s","ended":"%s","dry_run":%s}\n' \
    "$TASK" "$SHARD" "$rc" "${SLURM_ARRAY_JOB_ID:-}_${TASK}" "$(hostname -s)" "$STARTED" "$(now)" \
    "$([ -n "${GOMOKU_DRY_RUN:-}" ] && echo true || echo false)" > "$tmp" && mv -f "$tmp" "$MARKERS/task-$TASK.json"
}
trap 'rc=$?; write_marker "$rc"; exit "$rc"' EXIT
# SLURM signals every process of the task on scancel or at the time limit: gomoku-cli then
# abandons its games in flight, closes its journal and exits 130 (continue with -resume).
# The trap only keeps this script alive long enough to record that.
trap 'echo "sprt-array.sh: SIGTERM, waiting for gomoku-cli" >&2' TERM

if ! [[ $TASK =~ ^[0-9]+$ ]] || [ "$TASK" -lt 1 ] || [ "$TASK" -gt "$SHARDS" ]; then
  echo "sprt-array.sh: array task $TASK is not a shard of 1..$SHARDS: submit with --array=1-$SHARDS" >&2
  exit 2
fi

if [ -z "$BIN" ]; then
  if [ -x "$REPO/target/release/gomoku-cli" ]; then BIN=$REPO/target/release; else BIN=$REPO/target/debug; fi
fi
NEW_CMD=${NEW_CMD//\{BIN\}/$BIN}
OLD_CMD=${OLD_CMD//\{BIN\}/$BIN}

# EACH, OPENINGS, SPRT, EXTRA and the *_OPTS are split at spaces on purpose.
# shellcheck disable=SC2086
cmd=("$BIN/gomoku-cli"
  -engine "cmd=$NEW_CMD" "name=$NEW_NAME" $NEW_OPTS
  -engine "cmd=$OLD_CMD" "name=$OLD_NAME" $OLD_OPTS
  -each $EACH
  -rule "$RULE" -boardsize "$BOARDSIZE"
  -games "$GAMES" -repeat
  -openings $OPENINGS
  ${SPRT:+-sprt $SPRT}
  -concurrency "$CONCURRENCY"
  -shard "$SHARD" -rundir "$RUNDIR" -syncinterval "$SYNC_INTERVAL"
  $EXTRA
  "$@")

echo "task $TASK of job ${SLURM_ARRAY_JOB_ID:-?} on $(hostname -s): shard $SHARD, $CONCURRENCY at once, $STARTED"
printf '%q ' "${cmd[@]}"; echo

mkdir -p "$RUNDIR" || exit 1
if [ -n "${GOMOKU_DRY_RUN:-}" ]; then
  # Checks the SLURM side without playing: the command above is replaced by `true`.
  echo "GOMOKU_DRY_RUN is set: running true instead"
  true
else
  "${cmd[@]}"
fi
rc=$?
echo "task $TASK: gomoku-cli exited with $rc at $(now)"
exit "$rc"
