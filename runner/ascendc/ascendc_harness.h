// The Ascend C candidate harness (evk-runner-ascendc): the command protocol of evk-runner
// (src/verify/runner_protocol.h: load/run/quit over the control socket, inputs from the sealed
// memfd, outputs into the parent's slots) with every tensor in the emulated AI Core's global
// memory. A "load" writes the set into the group's device buffers (same device addresses while
// the shapes match); a "run" poisons the slot's device outputs, calls evk_forward, and copies
// the device outputs into the slot. The "ms" of each call is the cycle model's latency, not a
// clock (deterministic: the parent times nothing for this backend), and the "done" reply adds
// the model's figures of the batch's first call as "modeled". An emulator error or a direct
// touch of global memory ends the batch with a "done" reply whose exception names the category.
#pragma once
#include "verify/runner_protocol.h"

namespace evk::runner::ascendc {

// Returns the process exit code. `report_fd` is the saved real stdout.
int run_ascendc_harness(const RunnerJob& job, int report_fd);

}  // namespace evk::runner::ascendc
