// task: builtin:level2/gemm_multiply_leakyrelu
// expect: feasible
// y = leaky_relu((x W^T + b) * 2.0, 0.1); the multiplier is the task's MULTIPLIER constant.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* w = static_cast<const float*>(in[1].data);
  const float* bias = static_cast<const float*>(in[2].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t b = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[0];
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = bias[j];
      for (int64_t p = 0; p < k; ++p) s += x[i * k + p] * w[j * k + p];
      s *= 2.0f;
      y[i * n + j] = s > 0 ? s : 0.1f * s;
    }
  return 0;
}
