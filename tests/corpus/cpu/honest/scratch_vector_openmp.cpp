// task: builtin:level1/sum_dim
// expect: feasible
// honest: OpenMP over the batch with a per-iteration scratch std::vector.
#include <vector>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t b = in[0].shape[0], d1 = in[0].shape[1], d2 = in[0].shape[2];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < b; ++i) {
    std::vector<double> acc(d2, 0.0);
    for (int64_t j = 0; j < d1; ++j)
      for (int64_t k = 0; k < d2; ++k) acc[k] += x[(i * d1 + j) * d2 + k];
    for (int64_t k = 0; k < d2; ++k) y[i * d2 + k] = static_cast<float>(acc[k]);
  }
  return 0;
}
