// task: builtin:level1/relu
// expect: mismatch
// gate: correctness
// cheat: computes only the first half of the output (the rest keeps the harness's NaN poison).
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]) / 2; i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}
