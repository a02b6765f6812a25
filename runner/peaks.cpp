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

// Copy bandwidth (bytes read + written) with the widest vector loads and stores, best of
// several repetitions: an upper bound on what a kernel can move at this working-set size.
double copy_gbps(int threads, size_t bytes_per_thread, int reps_inner) {
  size_t n = bytes_per_thread / sizeof(v16);
  std::vector<std::vector<v16>> a(threads), b(threads);
  parallel(threads, [&](int i) {
    a[i].assign(n, v16{} + 1.0f);
    b[i].assign(n, v16{});
  });
  double best = 0;
  for (int rep = 0; rep < 9; ++rep) {
    double t = parallel(threads, [&](int i) {
      v16* __restrict dst = b[i].data();
      const v16* __restrict src = a[i].data();
      for (int k = 0; k < reps_inner; ++k) {
        for (size_t j = 0; j < n; ++j) dst[j] = src[j];
        asm volatile("" ::: "memory");  // keep every repetition
      }
    });
    double bytes = 2.0 * static_cast<double>(n * sizeof(v16)) * reps_inner * threads;
    best = std::max(best, bytes / t / 1e9);
  }
  return best;
}

double fma_gflops(int threads) {
  const long iters = 20'000'000;
  std::vector<float> sink(threads);
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double t = parallel(threads, [&](int i) {
      v16 m = {}, c = {};
      for (int l = 0; l < 16; ++l) m[l] = 0.999999f, c[l] = 1e-7f;
      v16 acc[8] = {};
      for (int k = 0; k < 8; ++k) acc[k] = c * static_cast<float>(k + i + 1);
      for (long it = 0; it < iters / 8; ++it)
        for (int k = 0; k < 8; ++k) acc[k] = acc[k] * m + c;
      float s = 0;
      for (int k = 0; k < 8; ++k)
        for (int l = 0; l < 16; ++l) s += acc[k][l];
      sink[i] = s;
    });
    double flops = 2.0 * 16 * 8 * static_cast<double>(iters / 8) * threads;
    best = std::max(best, flops / t / 1e9);
  }
  volatile float keep = sink[0];
  (void)keep;
  return best;
}

}  // namespace

nlohmann::json measure_peaks(int threads) {
  threads = std::max(1, threads);
  return {{"gbps", copy_gbps(threads, 128u << 20, 4)},
          {"l2_gbps", copy_gbps(threads, 512u << 10, 2000)},
          {"l1_gbps", copy_gbps(threads, 16u << 10, 40000)},
          {"gflops", fma_gflops(threads)},
          {"threads", threads}};
}

}  // namespace evk::runner
