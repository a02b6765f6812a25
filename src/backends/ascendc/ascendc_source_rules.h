// The ascendc backend's source rules (gate 1a), judged like the CPU backend's on what the
// compiler sees: the translation unit after `g++ -E` with the compile's flags
// (backends/preprocessed.h), so that a name pasted with ## is seen pasted and a helper may be
// called write, open, signal or thread. The rules are early feedback, not the boundary (that
// is the API-trace replay, the library's import and instruction checks and the runner's
// sandbox):
//  - every file included directly is kernel_operator.h, the Matmul/tiling headers or a C/C++
//    math or algorithm header;
//  - the CPU rules on the preprocessed unit: no inline assembly, no time-stamp reads, no
//    attribute that runs code at load or moves code or symbols;
//  - in the candidate's own code (not a knowledge header's macro on that line): no evk_acl_*
//    name (the emulator's entry points) and no `.t_` (the API objects' handle).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace evk {

std::optional<std::string> check_ascendc_source(const std::string& src);

// The compile's flags without -shared, for `g++ -E`.
std::vector<std::string> ascendc_preprocess_argv();

}  // namespace evk
