// task: builtin:level1/gelu
// expect: mismatch
// gate: correctness
// cheat: exact GELU for |x| <= 5 but the input clamped to [-5, 5] beyond: wrong for large
// inputs. Normal-distributed seeds almost never hold |x| > 5, so the old verifier accepted it.
// The edge-case set holds large magnitudes.
#include <cmath>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) {
    float v = x[i] != x[i] ? x[i] : std::fmin(5.0f, std::fmax(-5.0f, x[i]));
    y[i] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f));
  }
  return 0;
}
