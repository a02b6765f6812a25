// The machine's peaks for the roofline: STREAM-like copy bandwidth on a ladder of working-set
// sizes (16 KiB, 512 KiB, 8 MiB and a DRAM-sized 256 MiB per thread) and an FMA-loop FLOP
// rate, with `threads` threads, each figure the best of `reps` samples with its spread.
#pragma once
#include <nlohmann/json.hpp>

namespace evk::runner {

// {"gbps": DRAM copy, "l3_gbps", "l2_gbps", "l1_gbps", "gflops", "threads", "samples",
//  "spread": {same keys: best / median of the samples, >= 1}}
nlohmann::json measure_peaks(int threads, int reps = 7);

}  // namespace evk::runner
