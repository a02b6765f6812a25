// task: builtin:level1/relu
// expect: mismatch
// gate: correctness
// cheat: writes a constant instead of computing.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor* out, int32_t) {
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&out[0]); i < n; ++i) y[i] = 0.4f;
  return 0;
}
