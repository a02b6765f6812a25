// task: builtin:level2/gemm_bias_gelu
// expect: feasible
// y = gelu(x W^T + bias). state_dict() lists a module's own parameters before its children's:
// in[1] = bias, in[2] = linear.weight [out, in].
#include <cmath>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* bias = static_cast<const float*>(in[1].data);
  const float* w = static_cast<const float*>(in[2].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t b = in[0].shape[0], k = in[0].shape[1], n = in[2].shape[0];
#pragma omp parallel for
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = 0;
      for (int64_t p = 0; p < k; ++p) s += x[i * k + p] * w[j * k + p];
      s += bias[j];
      y[i * n + j] = 0.5f * s * (1.0f + std::erf(s * 0.70710678f));
    }
  return 0;
}
