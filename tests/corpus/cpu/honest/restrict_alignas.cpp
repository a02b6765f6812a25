// task: builtin:level1/hardtanh
// expect: feasible
// honest: __restrict__ pointers, an alignas stack tile and #pragma omp simd.
#include <algorithm>
#include <cstring>

#include "evokernel/kernel_abi.h"

namespace {
void clamp_tile(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  alignas(64) float tile[256];
  for (int64_t base = 0; base < n; base += 256) {
    const int64_t m = std::min<int64_t>(256, n - base);
    std::memcpy(tile, x + base, sizeof(float) * m);
#pragma omp simd
    for (int64_t i = 0; i < m; ++i) tile[i] = tile[i] < -1.0f ? -1.0f : (tile[i] > 1.0f ? 1.0f : tile[i]);  // NaN stays NaN
    std::memcpy(y + base, tile, sizeof(float) * m);
  }
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  clamp_tile(static_cast<const float*>(in[0].data), static_cast<float*>(out[0].data),
             evk_numel(&in[0]));
  return 0;
}
