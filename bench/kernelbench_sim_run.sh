#!/bin/bash
# A `--model sim` run (SIMULATED: the offline coder, not an LLM) over KernelBench level 1 at
# budget 3 (issue 20): every task must end with attempts or a recorded skip reason, and the
# run must finish. Resumable: run it again and it continues the workspace's latest run.
#
#   nice -n 10 bench/kernelbench_sim_run.sh [BUILD] [KERNELBENCH_LEVEL1] [WORKSPACE]
#
# Prints the run's results (skipped tasks listed with their reasons) and a count of tasks with
# attempts and with a skip reason, read from the run's database.
set -euo pipefail
BUILD=${1:-build}
SUITE=${2:-/work/shared/kernelbench/level1}
WS=${3:-.evokernel-kb-sim}
B="$BUILD/evokernel --workspace $WS"
if [ -d "$WS/runs" ] && $B runs | awk 'NR > 1 && $3 != "done" {found=1} END {exit !found}'; then
  $B run --resume latest || true
else
  $B run --suite "$SUITE" --model sim --budget 3 --seed 1 || true
fi
$B results
RUN=$($B runs | awk 'NR > 1 {id=$1} END {print id}')
sqlite3 "$WS/runs/$RUN/evokernel.db" \
  "SELECT 'tasks with attempts: ' || count(DISTINCT task) FROM attempts;
   SELECT 'tasks skipped: ' || count(*) FROM run_tasks WHERE skipped IS NOT NULL;"
