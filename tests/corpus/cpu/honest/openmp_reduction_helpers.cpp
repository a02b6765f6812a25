// task: builtin:level1/rms_norm
// expect: feasible
// honest: OpenMP parallel rows with a reduction clause, omp_get_max_threads, and a helper
// named `dup` (the old rules rejected it as raw I/O).
#include <cmath>
#include <omp.h>

#include "evokernel/kernel_abi.h"

namespace {
inline float dup(float v) { return v * v; }
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* w = static_cast<const float*>(in[1].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t d = in[0].shape[in[0].ndim - 1];
  const int64_t rows = evk_numel(&in[0]) / d;
  const int threads = omp_get_max_threads();
#pragma omp parallel for num_threads(threads) if (rows > 1)
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t i = 0; i < d; ++i) s += dup(x[r * d + i]);
    const float inv = static_cast<float>(1.0 / std::sqrt(s / d + 1e-6));
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = x[r * d + i] * inv * w[i];
  }
  return 0;
}
