// The machine's peaks for the roofline: STREAM-like copy bandwidth at three working-set sizes
// (L1-, L2- and DRAM-sized) and an FMA-loop FLOP rate, with `threads` threads.
#pragma once
#include <nlohmann/json.hpp>

namespace evk::runner {

// {"gbps": DRAM copy, "l2_gbps": ..., "l1_gbps": ..., "gflops": ..., "threads": n}
nlohmann::json measure_peaks(int threads);

}  // namespace evk::runner
