// The GPU's peaks for the roofline and the too_fast floor: device-to-device copy bandwidth
// over a working set several times the L2 cache, and an FMA-loop FLOP rate.
#pragma once
#include <nlohmann/json.hpp>

namespace evk::runner::cuda {

// Best of several timed copies of `bytes` between two halves of `scratch` (which holds at
// least 2 * bytes), bytes read + written per second / 1e9.
double copy_gbps(void* scratch, size_t bytes);

// FMA throughput of the current device, GFLOP/s (2 flops per FMA); defined in fma_peak.cu.
double fma_gflops();

// {"gbps": ..., "gflops": ..., "l2_bytes": ..., "name": ...} for the current device.
nlohmann::json measure_device_peaks();

}  // namespace evk::runner::cuda
