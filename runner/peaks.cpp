// Compiled with -march=native (runner/CMakeLists.txt) so that the FLOP loop uses the widest
// FMA units, as candidates compiled with -march=native do.
#include "peaks.h"

#include <time.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace evk::runner {
namespace {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// Runs fn(thread_index) on `threads` threads at once; returns the wall time.
template <class F>
double parallel(int threads, F fn) {
  double t0 = now_s();
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(fn, i);
  fn(0);
  for (auto& t : pool) t.join();
  return now_s() - t0;
}

typedef float v16 __attribute__((vector_size(64)));

// The best and the spread of repeated samples: a peak is the fastest sample (noise only
// slows a loop down); the spread (best / median) says how far one sample can be trusted.
nlohmann::json summary(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  double best = samples.back(), median = samples[samples.size() / 2];
  return {{"best", best},
          {"spread", median > 0 ? best / median : 0.0},
          {"samples", static_cast<int>(samples.size())}};
}

// Copy bandwidth (bytes read + written) with the widest vector loads and stores, one sample
// per repetition: an upper bound on what a kernel can move at this working-set size.
// `bytes_per_thread` is the working set of one thread (source plus destination).
std::vector<double> copy_gbps(int threads, size_t bytes_per_thread, double sample_s, int reps) {
  size_t n = std::max<size_t>(1, bytes_per_thread / 2 / sizeof(v16));
  std::vector<std::vector<v16>> a(threads), b(threads);
  parallel(threads, [&](int i) {
    a[i].assign(n, v16{} + 1.0f);
    b[i].assign(n, v16{});
  });
  auto pass = [&](int inner) {
    return parallel(threads, [&](int i) {
      v16* __restrict dst = b[i].data();
      const v16* __restrict src = a[i].data();
      for (int k = 0; k < inner; ++k) {
        for (size_t j = 0; j < n; ++j) dst[j] = src[j];
        asm volatile("" ::: "memory");  // keep every repetition
      }
    });
  };
  // Size one sample to about sample_s, after a warm-up pass (page faults, frequency ramp).
  double one = std::max(pass(1), 1e-7);
  int inner = std::clamp(static_cast<int>(sample_s / one), 1, 1 << 24);
  (void)pass(inner);
  std::vector<double> out;
  for (int rep = 0; rep < reps; ++rep) {
    double t = pass(inner);
    double bytes = 2.0 * static_cast<double>(n * sizeof(v16)) * inner * threads;
    out.push_back(bytes / t / 1e9);
  }
  return out;
}

// One register of the widest vector unit: the FMA loop's accumulators must all stay in
// registers. With 64-byte vectors on AVX2 (two ymm each) eight accumulators plus the two
// operands need 18 of its 16 registers: the spills put a store-to-load chain in the loop
// and measured 2.3 GFLOP/s where OpenBLAS's SGEMM reached 87.
#if defined(__AVX512F__)
constexpr int kLanes = 16;
#elif defined(__AVX__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float vreg __attribute__((vector_size(kLanes * sizeof(float))));
// Independent FMA chains: enough to cover two FMA pipes of latency 4-5 (Zen, Intel), few enough
// that they and the two operands fit 16 registers.
constexpr int kChains = 12;

std::vector<double> fma_gflops(int threads, int reps) {
  const long iters = 8'000'000 * 16 / kLanes;
  std::vector<float> sink(threads);
  std::vector<double> out;
  for (int rep = 0; rep < reps + 1; ++rep) {  // the first is a warm-up
    double t = parallel(threads, [&](int i) {
      vreg m = {}, c = {};
      for (int l = 0; l < kLanes; ++l) m[l] = 0.999999f, c[l] = 1e-7f;
      vreg acc[kChains] = {};
      for (int k = 0; k < kChains; ++k) acc[k] = c * static_cast<float>(k + i + 1);
      for (long it = 0; it < iters / kChains; ++it)
        for (int k = 0; k < kChains; ++k) acc[k] = acc[k] * m + c;
      float s = 0;
      for (int k = 0; k < kChains; ++k)
        for (int l = 0; l < kLanes; ++l) s += acc[k][l];
      sink[i] = s;
    });
    double flops = 2.0 * kLanes * kChains * static_cast<double>(iters / kChains) * threads;
    if (rep > 0) out.push_back(flops / t / 1e9);
  }
  volatile float keep = sink[0];
  (void)keep;
  return out;
}

}  // namespace

nlohmann::json measure_peaks(int threads, int reps) {
  threads = std::max(1, threads);
  reps = std::max(3, reps);
  // The working-set ladder of MachinePeaks (src/verify/peaks.h): 16 KiB, 512 KiB, 8 MiB,
  // 256 MiB per thread.
  nlohmann::json dram = summary(copy_gbps(threads, 256u << 20, 0.15, reps));
  nlohmann::json l3 = summary(copy_gbps(threads, 8u << 20, 0.03, reps));
  nlohmann::json l2 = summary(copy_gbps(threads, 512u << 10, 0.02, reps));
  nlohmann::json l1 = summary(copy_gbps(threads, 16u << 10, 0.02, reps));
  nlohmann::json fma = summary(fma_gflops(threads, reps));
  return {{"gbps", dram["best"]},
          {"l3_gbps", l3["best"]},
          {"l2_gbps", l2["best"]},
          {"l1_gbps", l1["best"]},
          {"gflops", fma["best"]},
          {"threads", threads},
          {"samples", reps},
          {"spread",
           {{"gbps", dram["spread"]},
            {"l3_gbps", l3["spread"]},
            {"l2_gbps", l2["spread"]},
            {"l1_gbps", l1["spread"]},
            {"gflops", fma["spread"]}}}};
}

}  // namespace evk::runner
