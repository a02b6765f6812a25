// task: builtin:level1/matvec
// expect: feasible
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* x = static_cast<const float*>(in[1].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1];
  for (int64_t i = 0; i < m; ++i) {
    float s = 0;
    for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * x[p];
    y[i] = s;
  }
  return 0;
}
