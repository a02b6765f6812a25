// The candidate harness: maps the parent's input and output regions, loads one kernel library,
// installs the sandbox, then executes the parent's commands (src/verify/runner_protocol.h)
// until "quit". It decides nothing: which inputs, how many calls, which outputs are checked
// and how long the calls took are the parent's.
#pragma once
#include "verify/runner_protocol.h"

namespace evk::runner {

// Returns the process exit code. `report_fd` is the saved real stdout.
int run_harness(const RunnerJob& job, int report_fd);

}  // namespace evk::runner
