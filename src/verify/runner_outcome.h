// What a runner's ending means for the verdict, decided from the outcome alone (no process,
// no files, no clock): the verifier's classification of crashes, hangs, floods, forbidden
// calls and load failures, unit-tested on hand-made outcomes (tests/unit/verify/).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/verdict.h"
#include "verify/trial.h"

namespace evk {

// The limits the feedback names, as the runner ran under them.
struct RunnerBounds {
  double run_timeout_s = 0;
  uint64_t address_space_mb = 0;
  size_t output_cap = 0;  // bytes of output kept
};

struct RunnerFailure {
  Gate gate = Gate::Correctness;  // the gate that failed; those before it passed
  Category category = Category::RuntimeCrash;
  std::string feedback;
  // The library never loaded: a compile failure, with no runtime gate passed.
  bool load_error = false;
};

// nullopt when the runner carried the plan to its end and every check passed (the
// correctness and dynamic gates are then the roofline's to finish). The order is the order of
// precedence: the trial's own verdict, the sandbox's, the wall clock, the output cap, a
// signal, a load failure, an early exit.
std::optional<RunnerFailure> classify_runner_outcome(const TrialOutcome& out, const RunnerBounds& b);

}  // namespace evk
