// task: builtin:level2/gemm_log_softmax
// expect: feasible
// y = log_softmax((x W^T + b) * 3.0, dim=1).
#include <algorithm>
#include <cmath>
#include <vector>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* w = static_cast<const float*>(in[1].data);
  const float* bias = static_cast<const float*>(in[2].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t b = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[0];
  std::vector<float> z(n);
  for (int64_t i = 0; i < b; ++i) {
    float m = -INFINITY;
    for (int64_t j = 0; j < n; ++j) {
      float s = bias[j];
      for (int64_t p = 0; p < k; ++p) s += x[i * k + p] * w[j * k + p];
      z[j] = s * 3.0f;
      m = std::max(m, z[j]);
    }
    double se = 0;
    for (int64_t j = 0; j < n; ++j) se += std::exp(z[j] - m);
    const float lse = m + static_cast<float>(std::log(se));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = z[j] - lse;
  }
  return 0;
}
