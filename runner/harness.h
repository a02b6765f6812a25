// The candidate harness: loads one kernel library, calls it on every seed's inputs, runs the
// dynamic anti-hack probes and times it. Reports facts as JSON lines on `report_fd` (see
// src/verify/runner_protocol.h); judging them is the verifier's job.
#pragma once
#include "verify/runner_protocol.h"

namespace evk::runner {

// Returns the process exit code. `report_fd` is the saved real stdout.
int run_harness(const RunnerJob& job, int report_fd);

}  // namespace evk::runner
