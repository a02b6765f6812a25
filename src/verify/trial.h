// The parent's plan for one candidate in its runner (gates 3-5 of the verifier): every
// correctness set called once and compared here; then timed batches whose inputs, order, size
// and checked calls the parent draws fresh for this verification. Between batches a group's
// buffers are reloaded with another timing set (the same addresses, values changed in a few
// random positions for a variant): the first call after a reload and a random sample of the
// others are compared against references the runner never saw. The parent's clock times the
// batches (the authority); the runner's per-call clock is a claim that must fit inside it; the
// runner's CPU time over the timed batches must fit in wall time x threads.
#pragma once
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/verdict.h"
#include "tasks/task.h"
#include "verify/compare.h"
#include "verify/runner_client.h"

namespace evk {

// One input set with its references, as the parent holds it.
struct TrialSet {
  std::string name;             // "seed 0", "edge", "shape2", "variant0"
  std::string description;      // for feedback: "the edge-case inputs (...)"
  std::vector<Tensor> inputs;   // ABI order
  std::vector<Tensor> outputs;  // references, ABI output order
  std::vector<RunnerOutputSpec> specs;
  bool correctness = false;  // called once and compared in the correctness gate
  bool timing = false;       // may be loaded into a timing group (same shapes as seed 0)
  int base = -1;             // a variant: the seed it changes in a few positions
};

struct TrialOptions {
  Tolerance tol;
  double timing_budget_ms = 1000;
  int timing_max_trials = 200;
  int min_batches = 5;
  // A batch's length: the parent's clock overhead stays small. Longer batches cost less
  // around the calls but, on a busy machine, are preempted more: 40 ms put relu's median
  // max/min over fresh verifications at 4.0 where 10 ms gave 1.1-1.2 (bench_verify, load 14).
  double batch_target_ms = 10;
  int threads = 1;
  uint64_t region_cap_bytes = 256ull << 20;  // output slots
  // The runner's "ms" come from a deterministic cost model (ascendc), not a clock: one checked
  // call per seed, latency = the median of the modeled times; nothing is timed or confirmed.
  bool modeled = false;
};

struct TrialOutcome {
  bool passed = false;       // every gate up to the latency measurement passed
  bool ended_early = false;  // the runner ended before the plan did: judge run.process/report
  Gate gate = Gate::Correctness;
  Category category = Category::Ok;  // when !passed: why
  std::string feedback;
  std::string phase;  // the parent's phase when it ended: "seed 1", "timing", ...
  nlohmann::json metrics = nlohmann::json::object();
  double median_ms = 0, iqr_ms = 0, min_ms = 0;
  int trials = 0, batches = 0, checked_calls = 0;
  RunnerRun run;
};

// A reference's tensors split into inputs (ABI order) and outputs, read once.
TrialSet trial_set(const Reference& r, const std::string& name, const std::string& description);

// `seeds` of the sets are the first ones, in seed order, and are the timing groups.
TrialOutcome run_trial(const std::string& library, const std::vector<std::string>& abi,
                       const std::vector<TrialSet>& sets, int seeds, const TrialOptions& opt,
                       const RunnerLimits& lim, const std::string& workdir);

}  // namespace evk
