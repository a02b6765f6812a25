// Static rules on a CUDA candidate (gate 1, before compiling): early feedback, not the
// security boundary (the jail and the runner are). The source is preprocessed twice, as nvcc
// compiles it (the host pass, and the device pass with __CUDA_ARCH__ defined), and each pass is
// checked: every header it includes must be on the CUDA allowlist (no cuBLAS, cuDNN, CUB,
// Thrust, libtorch), and no token may reach the driver API, vendor libraries, streams other
// than the default one (cudaStreamPerThread included, whatever it expands to), events, timers,
// host-visible memory or the device's context; every cudaMemcpy* names its direction as
// host-to-device or device-to-device; no attribute runs code at load time. Host calls into the
// C library (files, processes, threads, clocks) are judged on the library's imports
// (import_rules.h), not on spellings here. Without nvcc only the #include lines are checked
// and the compile reports the rest.
#pragma once
#include <optional>
#include <string>

namespace evk {

// nullopt when clean; else "line N: <construct> is not allowed: <why>" (N in the candidate's
// own source).
std::optional<std::string> check_cuda_source(const std::string& src);

}  // namespace evk
