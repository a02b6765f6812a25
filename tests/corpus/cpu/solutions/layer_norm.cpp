// task: builtin:level1/layer_norm
// expect: feasible
// LayerNorm over the last dimension; in[1] = ln.weight, in[2] = ln.bias (state_dict order).
#include <cmath>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* w = static_cast<const float*>(in[1].data);
  const float* b = static_cast<const float*>(in[2].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t d = in[0].shape[in[0].ndim - 1];
  const int64_t rows = evk_numel(&in[0]) / d;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < d; ++i) mean += xr[i];
    mean /= d;
    for (int64_t i = 0; i < d; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= d;
    const double inv = 1.0 / std::sqrt(var + 1e-5);
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = static_cast<float>((xr[i] - mean) * inv) * w[i] + b[i];
  }
  return 0;
}
