// task: builtin:level1/mse_loss
// expect: feasible
// Row-wise mean of squared differences.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* p = static_cast<const float*>(in[0].data);
  const float* t = static_cast<const float*>(in[1].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t b = in[0].shape[0], d = in[0].shape[1];
  for (int64_t r = 0; r < b; ++r) {
    double s = 0;
    for (int64_t i = 0; i < d; ++i) {
      double e = p[r * d + i] - t[r * d + i];
      s += e * e;
    }
    y[r] = static_cast<float>(s / d);
  }
  return 0;
}
