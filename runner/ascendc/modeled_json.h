// What a call cost on the emulated AI Core, as JSON: the verdict's metrics.modeled. Written by
// the replay (the figures a verdict uses) and by the kernel's own runner (a claim, kept beside
// them), in one format; src/verify/diagnose.cpp reads the pipe stats' names.
#pragma once
#include <nlohmann/json.hpp>

#include "backends/ascendc/npu_constants.h"
#include "emulator.h"

namespace evk::runner::ascendc {

inline nlohmann::json pipes_json(const PipeStats& p) {
  return {{"busy",
           {{"mte2", p.busy[PipeStats::kMte2]},
            {"vector", p.busy[PipeStats::kVector]},
            {"cube", p.busy[PipeStats::kCube]},
            {"mte3", p.busy[PipeStats::kMte3]},
            {"scalar", p.busy[PipeStats::kScalar]}}},
          {"mean_core", p.mean_core},
          {"blocks", p.blocks},
          {"ub_peak", p.ub_peak},
          {"queues", p.queues},
          {"single_buffered", p.single_buffered}};
}

inline nlohmann::json modeled_json(const Emulator& e) {
  nlohmann::json launches = nlohmann::json::array();
  for (const auto& l : e.launches())
    launches.push_back({{"kernel", l.kernel},
                        {"block_dim", l.block_dim},
                        {"cycles", l.cycles},
                        {"pipes", pipes_json(l.pipes)}});
  return {{"cycles", e.call_cycles()},
          {"ms", e.call_ms()},
          {"clock_ghz", npu::kClockGHz},
          {"launch_us", npu::kLaunchUs},
          {"launches", launches}};
}

}  // namespace evk::runner::ascendc
