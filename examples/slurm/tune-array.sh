#!/bin/bash
# tune-array.sh - one SPSA tuning (gomoku-cli tune) split over a SLURM job array, one shard per task.
#
# Submit from the repository root (or set REPO):
#   sbatch examples/slurm/tune-array.sh                    # tasks 1-4 = shards 1/4 .. 4/4
#   sbatch --array=2 examples/slurm/tune-array.sh -resume  # task 2 again, continuing its journal
# Arguments after the script name are appended to gomoku-cli's command line.
#
# Task K plays shard K of SHARDS: every SHARDS-th iteration (whole iterations: an iteration's
# values are drawn where it is played). Its journal is RUNDIR/shard-K-of-N.journal.jsonl. Every
# SYNC_INTERVAL seconds it reads the other shards' journals and applies their finished iterations
# to its θ, so the shards tune one θ; the seed (flips, rounding) is derived from the array's job
# id, the same in every task. Each task prints the tuned values at its end (`name, value` lines);
# the last task to end has applied every iteration it saw. RUNDIR must be on a filesystem every
# node sees.
#
#SBATCH --job-name=gomoku-tune
#SBATCH --array=1-4
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=%x-%A_%a.out
#SBATCH --time=02:00:00
#
# -------------------------------------------------------------------------------------------
# Edit these (or give them in sbatch's environment: RUNDIR=runs/t2 sbatch examples/slurm/tune-array.sh).
# -------------------------------------------------------------------------------------------
REPO=${REPO:-${SLURM_SUBMIT_DIR:-$PWD}}      # the gomoku-cli checkout (openings/, target/)
BIN=${BIN:-}                                 # empty: target/release if built there, else target/debug
SHARDS=${SHARDS:-4}                          # = the last index of --array=1-SHARDS
RUNDIR=${RUNDIR:-$REPO/runs/tune-scout}      # one directory per tuning
CONCURRENCY=${CONCURRENCY:-${SLURM_CPUS_PER_TASK:-1}}
SYNC_INTERVAL=${SYNC_INTERVAL:-2}
ENGINE=${ENGINE:-'{BIN}/pbrain-scout'}       # {BIN} is replaced by the binaries' directory
ENGINE_OPTS=${ENGINE_OPTS-'depth=3 tc=0/10'}
PARAMS=${PARAMS:-$REPO/examples/slurm/scout.params}
ITERATIONS=${ITERATIONS:-2000}               # of the whole tuning (all shards)
OPENINGS=${OPENINGS:-"file=$REPO/openings/freestyle15.txt type=pos order=random"}
RULE=${RULE:-0}
BOARDSIZE=${BOARDSIZE:-15}
EXTRA=${EXTRA-"-quiet -noprogress"}
# -------------------------------------------------------------------------------------------

set -uo pipefail
TASK=${SLURM_ARRAY_TASK_ID:?run this with sbatch --array=1-$SHARDS (or set SLURM_ARRAY_TASK_ID)}
cd "$REPO" || exit 1
if [ -z "$BIN" ]; then
  if [ -x "$REPO/target/release/gomoku-cli" ]; then BIN=$REPO/target/release; else BIN=$REPO/target/debug; fi
fi
ENGINE=${ENGINE//\{BIN\}/$BIN}
trap 'echo "tune-array.sh: SIGTERM, waiting for gomoku-cli" >&2' TERM

# ENGINE_OPTS, OPENINGS and EXTRA are split at spaces on purpose.
# shellcheck disable=SC2086
cmd=("$BIN/gomoku-cli" tune
  -engine "cmd=$ENGINE" $ENGINE_OPTS
  -params "$PARAMS" -iterations "$ITERATIONS"
  -rule "$RULE" -boardsize "$BOARDSIZE" -openings $OPENINGS
  -concurrency "$CONCURRENCY"
  -shard "$TASK/$SHARDS" -rundir "$RUNDIR" -syncinterval "$SYNC_INTERVAL"
  $EXTRA
  "$@")
echo "task $TASK of job ${SLURM_ARRAY_JOB_ID:-?} on $(hostname -s): shard $TASK/$SHARDS"
printf '%q ' "${cmd[@]}"; echo
mkdir -p "$RUNDIR" || exit 1
"${cmd[@]}"
rc=$?
echo "task $TASK: gomoku-cli exited with $rc"
exit "$rc"
