// The machine's measured peaks, for the roofline and the too_fast floor: copy bandwidth on a
// ladder of working sets (16 KiB, 512 KiB, 8 MiB, DRAM-sized) and an FMA-loop FLOP rate, each
// the best of several samples on pinned CPUs, with its spread. Stored per workspace and thread
// count; a later measurement only ever raises a stored figure (a peak measured under load is
// low, never high), so re-measuring on an idle machine repairs it.
#pragma once
#include <cstdint>
#include <string>

namespace evk {

class Workspace;

struct MachinePeaks {
  double gbps = 0;     // DRAM-sized copy, bytes read + written per second / 1e9
  double l3_gbps = 0;  // 8 MiB working set
  double l2_gbps = 0;  // 512 KiB working set
  double l1_gbps = 0;  // 16 KiB working set
  double gflops = 0;   // FMA loop, 2 flops per FMA
  int threads = 1;
  // best / median of the samples of the latest measurement (1 = perfectly stable); 0 unknown.
  double gbps_spread = 0, gflops_spread = 0;
  int samples = 0;       // samples per figure in the latest measurement
  int measurements = 0;  // measurements merged into these figures

  // The fastest rate a kernel whose working set is `bytes` can move them at: the rate of the
  // largest ladder level not above `bytes` (a working set streams no faster than a smaller
  // one). The too_fast floor uses it, so that it never rejects a kernel moving the bytes it
  // must, and yet never credits a 32 MiB working set with the L1's rate.
  double floor_bandwidth(int64_t bytes) const;
  // The roofline's rate for `bytes`: the level the working set fits in (the smallest ladder
  // level at or above it), DRAM beyond the 8 MiB level. This is the fraction shown to users
  // and models.
  double roofline_bandwidth(int64_t bytes) const;
  // One line for `doctor`.
  std::string describe() const;
};

// The least time the task's bytes and FLOPs can take (floor_bandwidth, gflops), in ms; 0
// where the peak is unknown.
struct RooflineFloors {
  double bytes_ms = 0, flops_ms = 0;
};
RooflineFloors roofline_floors(const MachinePeaks& p, int64_t bytes, int64_t flops);

// The roofline's attainable time (roofline_bandwidth, gflops) over `median_ms`: 1 is the
// roofline. Not capped: above 1 means the peaks are too low (the verifier handles it).
double roofline_fraction(const MachinePeaks& p, int64_t bytes, int64_t flops, double median_ms);

// Reads the stored figures, measuring them first when there are none. `remeasure`: measure
// again now and merge (raise only) into the stored figures.
MachinePeaks machine_peaks(Workspace& ws, int threads, bool remeasure = false);

// Each figure the larger of the two (the spread and sample count of `b`, the newer).
MachinePeaks merge_peaks(const MachinePeaks& a, const MachinePeaks& b);

// Replaces the stored figures (tests that start from known-low peaks; `doctor --remeasure`).
void store_peaks(Workspace& ws, const MachinePeaks& p);

}  // namespace evk
