// The machine's measured peaks, for the roofline: copy bandwidth (STREAM-like, DRAM-sized and
// cache-sized working sets) and an FMA-loop FLOP rate. Measured once per workspace and thread
// count by `evk-runner --measure-peaks`, then read from the workspace database.
#pragma once
#include <cstdint>

namespace evk {

class Workspace;

struct MachinePeaks {
  double gbps = 0;      // DRAM-sized copy, bytes read + written per second / 1e9
  double l2_gbps = 0;   // 512 KiB working set
  double l1_gbps = 0;   // 16 KiB working set
  double gflops = 0;    // FMA loop, 2 flops per FMA
  int threads = 1;

  // The fastest rate at which `bytes` can move through the memory hierarchy: the cache rate
  // when they fit a cache level, the DRAM rate otherwise. Used for the too_fast floor.
  double bandwidth_for(int64_t bytes) const;
};

// Measures (minutes at worst, about two seconds here) or reads the cached figures.
MachinePeaks machine_peaks(Workspace& ws, int threads);

}  // namespace evk
