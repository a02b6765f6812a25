// The roofline's peaks (verify/peaks.h): the ladder picks the level a working set can stream
// from, measurements only raise stored figures, and a roofline fraction above 100% (peaks
// measured low, as on a busy machine) is never reported: the verifier measures again.
#include "verify/peaks.h"

#include <gtest/gtest.h>

#include "corpus.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

MachinePeaks ladder() {
  MachinePeaks p;
  p.l1_gbps = 400;
  p.l2_gbps = 200;
  p.l3_gbps = 100;
  p.gbps = 20;
  p.gflops = 50;
  return p;
}

TEST(Peaks, FloorUsesTheLevelBelowTheWorkingSetNeverTheL1ForLargeSets) {
  MachinePeaks p = ladder();
  EXPECT_EQ(p.floor_bandwidth(4 << 10), 400);
  EXPECT_EQ(p.floor_bandwidth(2 << 20), 200);   // 2 MiB: no faster than 512 KiB streams
  EXPECT_EQ(p.floor_bandwidth(32 << 20), 100);  // 32 MiB: the 8 MiB rate, not the L1's
  EXPECT_EQ(p.floor_bandwidth(1ll << 30), 20);  // DRAM
  // The shown roofline uses the level the set fits in: DRAM beyond 8 MiB.
  EXPECT_EQ(p.roofline_bandwidth(4 << 10), 400);
  EXPECT_EQ(p.roofline_bandwidth(2 << 20), 100);
  EXPECT_EQ(p.roofline_bandwidth(32 << 20), 20);
  // Floors never above the roofline's own time for the same bytes.
  for (int64_t b : {1ll << 12, 1ll << 18, 3ll << 20, 1ll << 25, 1ll << 29})
    EXPECT_GE(p.floor_bandwidth(b), p.roofline_bandwidth(b)) << b;
}

TEST(Peaks, MissingLevelsFallBackToASlowerOne) {
  MachinePeaks p;
  p.gbps = 20;  // a device's peaks, or figures stored before the ladder
  EXPECT_EQ(p.floor_bandwidth(4 << 10), 20);
  EXPECT_EQ(p.roofline_bandwidth(4 << 10), 20);
}

TEST(Peaks, MergingOnlyRaises) {
  MachinePeaks low = ladder(), high = ladder();
  low.gbps = 5;
  high.l1_gbps = 100;
  MachinePeaks m = merge_peaks(low, high);
  EXPECT_EQ(m.gbps, 20);
  EXPECT_EQ(m.l1_gbps, 400);
}

TEST(Peaks, FractionIsTheAttainableTimeOverTheMedian) {
  MachinePeaks p = ladder();
  // 64 MiB at 20 GB/s: 3.355 ms attainable; at 6.71 ms that is 50%.
  int64_t bytes = 64ll << 20;
  double att = static_cast<double>(bytes) / (20 * 1e6);
  EXPECT_NEAR(roofline_fraction(p, bytes, 0, 2 * att), 0.5, 1e-9);
  EXPECT_NEAR(roofline_floors(p, bytes, 0).bytes_ms, static_cast<double>(bytes) / (100 * 1e6),
              1e-9);
}

// The measurement itself: every figure positive, spreads >= 1, stored and raised.
TEST(Peaks, MeasuredFiguresAreStoredWithTheirSpreadAndRaisedOnly) {
  fs::path root = fs::path(EVK_BINARY_DIR) / "peaks-test-ws-measure";
  fs::remove_all(root);
  Workspace ws(root);
  MachinePeaks p = machine_peaks(ws, 1);
  std::cout << "measured: " << p.describe() << "\n";
  for (double x : {p.gbps, p.l3_gbps, p.l2_gbps, p.l1_gbps, p.gflops}) EXPECT_GT(x, 0);
  EXPECT_GE(p.gbps_spread, 1.0);
  EXPECT_GE(p.gflops_spread, 1.0);
  EXPECT_GE(p.samples, 3);
  MachinePeaks high = p;
  high.gbps = 1e6;  // as if an earlier, better measurement had stored it
  store_peaks(ws, high);
  MachinePeaks again = machine_peaks(ws, 1, true);
  EXPECT_EQ(again.gbps, 1e6);  // a new measurement never lowers a stored figure
  EXPECT_EQ(again.measurements, p.measurements + 1);
}

class RooflineTest : public corpus_test::Corpus {};

// Peaks 1000x too low (measured under heavy load): an honest relu must neither be rejected
// as too fast nor shown above 100% of the roofline; the stored figures are repaired.
TEST_F(RooflineTest, FractionAboveOneIsNeverReportedAndLowPeaksAreRepaired) {
  fs::path root = fs::path(EVK_BINARY_DIR) / "peaks-test-ws-roofline";
  fs::remove_all(root);
  Workspace ws(root);
  OracleOptions oo;
  oo.max_elements = corpus_test::kMaxElements;
  oo.timing_runs = 3;
  MachinePeaks low;
  low.threads = 1;
  low.gbps = low.l3_gbps = low.l2_gbps = low.l1_gbps = 0.01;
  low.gflops = 0.01;
  low.measurements = 1;
  store_peaks(ws, low);
  Verifier v(ws, oo);
  auto c = corpus_test::read_case(data_root() / "tests/corpus/cpu/solutions/relu.cpp");
  Verdict d = v.verify(task(c.header.at("task")), c.source, options_for(c));
  ASSERT_TRUE(d.feasible) << d.category << ": " << d.feedback;
  EXPECT_GT(d.roofline_fraction, 0);
  EXPECT_LE(d.roofline_fraction, 1.0) << d.metrics.dump();
  MachinePeaks now = machine_peaks(ws, 1);
  EXPECT_GT(now.gbps, 0.01 * 100) << "the low peaks were not measured again";
  std::cout << "relu: " << 100 * d.roofline_fraction << "% of the roofline; peaks now "
            << now.describe() << "\n";
}

}  // namespace
}  // namespace evk
