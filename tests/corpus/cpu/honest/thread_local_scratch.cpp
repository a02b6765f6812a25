// task: builtin:level1/softmax
// expect: feasible
// honest: a plain thread_local scratch array (no constructor) per OpenMP thread and the
// `[[gnu::always_inline]]` and `__attribute__((hot))` attributes.
#include <algorithm>
#include <cmath>

#include "evokernel/kernel_abi.h"

namespace {
thread_local float row_buf[8192];

[[gnu::always_inline]] inline float fast_exp(float v) { return std::exp(v); }
}  // namespace

extern "C" __attribute__((hot)) int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out,
                                                 int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t d = in[0].shape[in[0].ndim - 1];
  if (d > 8192) return 1;
  const int64_t rows = evk_numel(&in[0]) / d;
#pragma omp parallel for
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    const float m = *std::max_element(xr, xr + d);
    double s = 0;
    for (int64_t i = 0; i < d; ++i) s += (row_buf[i] = fast_exp(xr[i] - m));
    const float inv = static_cast<float>(1.0 / s);
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = row_buf[i] * inv;
  }
  return 0;
}
