// task: builtin:level1/gelu
// expect: feasible
// Exact GELU: x * Phi(x) with the error function.
#include <cmath>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i)
    y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678f));
  return 0;
}
