// task: builtin:level1/gelu
// expect: feasible
// honest: a constexpr coefficient table (Abramowitz-Stegun 7.1.26 erf) at namespace scope:
// constant data, no load-time code.
#include <cmath>

#include "evokernel/kernel_abi.h"

namespace {
constexpr float kErfCoeff[5] = {0.254829592f, -0.284496736f, 1.421413741f, -1.453152027f,
                                1.061405429f};
constexpr float kP = 0.3275911f;

float erf_approx(float v) {
  const float s = v < 0 ? -1.0f : 1.0f, a = std::fabs(v);
  const float t = 1.0f / (1.0f + kP * a);
  float poly = 0;
  for (int k = 4; k >= 0; --k) poly = poly * t + kErfCoeff[k];
  return s * (1.0f - poly * t * std::exp(-a * a));
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i)
    y[i] = 0.5f * x[i] * (1.0f + erf_approx(x[i] * 0.70710678f));
  return 0;
}
