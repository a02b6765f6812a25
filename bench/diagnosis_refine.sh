#!/bin/bash
# Does refining that knows why a kernel is slow pay? (issue 27.) `--model sim` runs
# (SIMULATED: the offline coder, not an LLM) on built-in Ascend C tasks of levels 1 and 2 at
# budget 10, the same seeds, three arms:
#   none    the refine prompt without the diagnosis (a --prompt-dir copy of refine.md with
#           the "## Diagnosis of the start point" section removed) and memory.diagnosis=false
#   prompt  the diagnosis shown in the refine prompt; retrieval as in the paper
#           (memory.diagnosis=false)
#   full    the diagnosis shown and retrieval conditioned on it (memory.diagnosis=true: the
#           start point's bound in the query, Q2 per bound state)
# The sim reads the diagnosis as a model would: a refining move the diagnosis calls for (its
# bound or a fact, src/sim/sim_moves.cpp) weighs more; without the section it cannot.
# Prints per arm: tasks solved, speed-up of the best kernel over the task's first feasible
# draft (median and IQR over solved tasks) and fast_1, from `evokernel results --json`.
#
#   nice -n 10 bench/diagnosis_refine.sh [BUILD] [OUT_DIR] [SEEDS] [TASKS]
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-/tmp/evk-diagnosis-bench}
SEEDS=${3:-1}
TASKS=${4:-relu,sigmoid,softmax,gemm_relu_scale}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$OUT/prompts-none/refine.md" ]; then
mkdir -p "$OUT/prompts-none"
cp "$ROOT"/prompts/*.md "$OUT/prompts-none/"
# The refine template without its diagnosis section (heading to the next heading).
python3 - "$OUT/prompts-none/refine.md" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s2 = re.sub(r"## Diagnosis of the start point\n.*?(?=\n## )", "", s, flags=re.S)
assert s2 != s, "refine.md has no diagnosis section"
open(p, "w").write(s2)
PY
fi
# One arm: a fresh workspace (its own memory, seeded from knowledge/ascendc).
arm_run() {
  local arm=$1 seed=$2 ws="$OUT/ws-$1-$2" diag=true extra=()
  [ -f "$ws/results.json" ] && return 0
  rm -rf "$ws"
  [ "$arm" != full ] && diag=false
  [ "$arm" = none ] && extra=(--prompt-dir "$OUT/prompts-none")
  EVK_MEMORY_DIAGNOSIS=$diag "$BUILD/evokernel" --workspace "$ws" --max-elements 65536 run \
    --suite builtin:level1,builtin:level2 --tasks "$TASKS" --model sim --backend ascendc \
    --budget 10 --seed "$seed" --quiet "${extra[@]}" > "$ws.log" 2>&1 || true
  "$BUILD/evokernel" --workspace "$ws" results --json > "$ws/results.json"
}
for seed in ${SEEDS//,/ }; do  # the three arms of a seed side by side
  for arm in none prompt full; do arm_run "$arm" "$seed" & done
  wait
done
python3 - "$OUT" "$SEEDS" <<'PY'
import json, statistics, sys
out, seeds = sys.argv[1], sys.argv[2].split(",")
def q(xs, f):
    xs = sorted(xs)
    if not xs: return float("nan")
    k = (len(xs) - 1) * f
    lo = int(k); hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)
print("arm     seeds  solved  speed-up over first draft: median [IQR]  fast_1")
for arm in ["none", "prompt", "full"]:
    sp, solved, tasks, fast = [], 0, 0, []
    for s in seeds:
        j = json.load(open(f"{out}/ws-{arm}-{s}/results.json"))
        o = j["overall"]
        for t in o["per_task"]:
            tasks += 1
            if t.get("solved"):
                solved += 1
                if t.get("first_ms", 0) > 0 and t.get("best_ms", 0) > 0:
                    sp.append(t["first_ms"] / t["best_ms"])
        fast.append(o["fast_p"].get("1", 0))
    print(f"{arm:7s} {len(seeds):5d}  {solved:2d}/{tasks:<3d}  {q(sp,.5):6.2f}x [{q(sp,.25):.2f}x, {q(sp,.75):.2f}x]"
          f"                {100*statistics.mean(fast):5.1f}%")
PY
