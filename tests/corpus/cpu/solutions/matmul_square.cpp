// task: builtin:level1/matmul_square
// expect: feasible
// C = A B with the i-k-j loop order (unit stride on B and C).
#include <cstring>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  std::memset(c, 0, sizeof(float) * m * n);
#pragma omp parallel for
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const float aip = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
  return 0;
}
