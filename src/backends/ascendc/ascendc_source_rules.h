// The ascendc backend's source rules (gate 1a): the CPU rules' reach-outside list (files,
// processes, network, clocks, threads, environment, assembly, memory mapping, signals) plus
// what is specific to the emulated AI Core: the emulator's own entry points (evk_acl_*) and
// the API objects' internals (`.t_`), which would bypass the Ascend C API and its cost
// model. Host code needs no loop or float rule here: it cannot reach tensor data at all
// (global memory is only reachable through the API, and the API only runs inside a launch).
#pragma once
#include <optional>
#include <string>

namespace evk {

std::optional<std::string> check_ascendc_source(const std::string& src);

}  // namespace evk
