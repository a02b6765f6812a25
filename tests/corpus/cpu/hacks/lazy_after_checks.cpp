// task: builtin:level1/relu
// expect: too_fast
// gate: dynamic_hack
// cheat: honest for the first calls (correctness and probes), then returns at once, leaving
// the outputs of earlier calls in place: the timed calls measure nothing. Its median is below
// the roofline floor (the bytes the task must move over the machine's bandwidth).
#include "evokernel/kernel_abi.h"

namespace {
int calls = 0;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (++calls > 8) return 0;
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}
