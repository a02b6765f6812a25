// task: builtin:level1/softmax
// expect: feasible
// Row-wise softmax over the last dimension, max-subtracted for stability.
#include <algorithm>
#include <cmath>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t d = in[0].shape[in[0].ndim - 1];
  const int64_t rows = evk_numel(&in[0]) / d;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    float m = *std::max_element(xr, xr + d);
    double s = 0;
    for (int64_t i = 0; i < d; ++i) s += (yr[i] = std::exp(xr[i] - m));
    const float inv = static_cast<float>(1.0 / s);
    for (int64_t i = 0; i < d; ++i) yr[i] *= inv;
  }
  return 0;
}
