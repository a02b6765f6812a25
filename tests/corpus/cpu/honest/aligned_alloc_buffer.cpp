// task: builtin:level1/matmul_square
// expect: feasible
// honest: packs B transposed into an aligned_alloc buffer (freed before returning).
#include <cstdlib>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t n = in[0].shape[0];
  size_t bytes = ((sizeof(float) * n * n + 63) / 64) * 64;
  float* bt = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!bt) return 1;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) bt[j * n + i] = b[i * n + j];
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = 0;
      for (int64_t k = 0; k < n; ++k) s += a[i * n + k] * bt[j * n + k];
      c[i * n + j] = s;
    }
  std::free(bt);
  return 0;
}
