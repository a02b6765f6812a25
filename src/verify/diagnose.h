// The diagnosis of a feasible kernel (core/diagnosis.h) from what the verifier measured:
//  - a modeled (Ascend C) latency: the cost model's per-pipe busy cycles on the slowest core
//    (`modeled.launches[].pipes`, runner/ascendc/emulator.h PipeStats), launches, buffers and
//    cores; the bound is the pipe that fills the span, or launch/imbalance/serialised;
//  - a timed latency (cpu, opencl, cuda): the achieved bandwidth and FLOP rate against the
//    peaks the verdict was judged with (the machine's, or the GPU's); plus, for CUDA, the
//    ptxas resource report kept as compile notes (registers, spills, shared memory, occupancy).
// Everything comes from the parent's own measurement or the cost model's deterministic
// replay; the runner's figures are not trusted for the bound.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/diagnosis.h"
#include "verify/peaks.h"

namespace evk {

struct DiagnoseInputs {
  double median_ms = 0;
  int64_t bytes = 0, flops = 0;  // the task's (Reference)
  MachinePeaks peaks;            // the peaks the latency was judged against
  bool device_peaks = false;     // peaks of an accelerator (no cache ladder)
  nlohmann::json modeled;        // metrics["modeled"] of a modeled latency, else null
  std::string compile_notes;     // metrics["compile_notes"] (CUDA: the ptxas report)
};

Diagnosis diagnose(const DiagnoseInputs& in);

// The parts, exposed for tests.
Diagnosis diagnose_modeled(const nlohmann::json& modeled);
Diagnosis diagnose_roofline(const DiagnoseInputs& in);

}  // namespace evk
