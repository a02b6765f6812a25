// The CUDA candidate harness: the same job and command protocol as evk-runner
// (src/verify/runner_protocol.h), with tensors in device memory. Measures the device's peaks
// (a "device_peaks" event on stdout), loads the kernel library, then executes the parent's
// commands: "load" uploads a set into a group's device buffers, "run" flushes the L2 before
// each call, records CUDA events around it (a claim), synchronises the whole device, and
// copies the outputs into the parent's slots after the last call. The parent judges.
#pragma once
#include "verify/runner_protocol.h"

namespace evk::runner::cuda {

// Returns the process exit code. `report_fd` is the saved real stdout.
int run_cuda_harness(const RunnerJob& job, int report_fd);

}  // namespace evk::runner::cuda
