// task: builtin:level1/relu
// expect: mismatch
// gate: correctness
// feedback: edge-case
// cheat (or bug): std::max(0, x) turns NaN into 0 where PyTorch's relu propagates it. The old
// verifier only tried normal-distributed inputs; the edge-case set holds NaN where the
// reference propagates it.
#include <algorithm>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = std::max(0.0f, x[i]);
  return 0;
}
