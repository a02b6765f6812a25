// Static anti-hack rules on a CUDA candidate's source text (gate 1, before compiling).
// Comments and string/char literals are blanked first (newlines kept, so line numbers hold),
// then: every #include must be on the CUDA whitelist, no forbidden identifier may appear
// (vendor libraries, extra streams, events, graphs, host callbacks, host-visible memory,
// device-to-host copies, the driver API, plus the CPU backend's files/processes/threads/timers
// rules), no token pasting, and every cudaMemcpy* call names its direction as host-to-device
// or device-to-device (a device-to-host copy would let the host compute the result).
#pragma once
#include <optional>
#include <string>

namespace evk {

// nullopt when clean; else "line N: <construct> is not allowed: <why>".
std::optional<std::string> check_cuda_source(const std::string& src);

}  // namespace evk
