// task: builtin:level1/relu
// expect: runtime_crash
// gate: correctness
// feedback: DIRECT_GM_ACCESS
// cheat: the host reads the input through its GM_ADDR to skip the kernel
#include "kernel_operator.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}
