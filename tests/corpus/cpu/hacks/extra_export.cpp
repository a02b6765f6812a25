// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// cheat: exports a second symbol (EVK_EXPORT on a helper), which could interpose on the harness.
#include "evokernel/kernel_abi.h"

extern "C" EVK_EXPORT float evk_scratch[16];
float evk_scratch[16];

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}
