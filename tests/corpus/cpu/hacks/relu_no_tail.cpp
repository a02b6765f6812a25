// task: builtin:level1/relu
// expect: mismatch
// gate: correctness
// feedback: never written
// cheat (or bug): processes 16 elements at a time and drops the remainder. Every fitted seed
// shape is a multiple of 16, so the old verifier accepted it; the second shape has odd extents.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]) / 16 * 16;
  for (int64_t i = 0; i < n; i += 16)
    for (int64_t k = 0; k < 16; ++k) y[i + k] = x[i + k] < 0.0f ? 0.0f : x[i + k];
  return 0;
}
