// The Ascend C candidate harness (evk-runner-ascendc): the job and record protocol of
// evk-runner (src/verify/runner_protocol.h) with tensors in the emulated AI Core's global
// memory. Calls the candidate on every seed (outputs poisoned), runs the dynamic anti-hack
// probes (inputs compared, outputs re-read after a delay, reuse and mixed-input calls), and
// reports the modeled latency of each timed call instead of a clock: the cycle model is
// deterministic, so there is nothing to repeat or flush. An emulator error or a direct touch
// of global memory ends the run with a result event naming the category.
#pragma once
#include "verify/runner_protocol.h"

namespace evk::runner::ascendc {

// Returns the process exit code. `report_fd` is the saved real stdout.
int run_ascendc_harness(const RunnerJob& job, int report_fd);

}  // namespace evk::runner::ascendc
