// The CUDA candidate harness: the same job and record protocol as evk-runner
// (src/verify/runner_protocol.h), with tensors in device memory. Loads the kernel library,
// calls it on every seed's inputs (outputs poisoned with NaN, the device synchronised after
// every call, all streams), runs the dynamic anti-hack probes (inputs copied back and compared,
// outputs re-read after a delay, reuse and mixed-input calls) and times it with CUDA events,
// flushing the L2 cache between calls. Reports facts; the verifier judges them.
#pragma once
#include "verify/runner_protocol.h"

namespace evk::runner::cuda {

// Returns the process exit code. `report_fd` is the saved real stdout.
int run_cuda_harness(const RunnerJob& job, int report_fd);

}  // namespace evk::runner::cuda
