// task: builtin:level1/relu
// expect: hack_dynamic
// gate: dynamic_hack
// cheat: honest for the first calls (correctness and probes), then returns at once, leaving
// whatever the output buffers held: the timed calls measure nothing. The old verifier caught
// it by the roofline floor only; now the parent poisons every timed call's output slot and
// checks a random sample of them (and its median is still below the floor).
#include "evokernel/kernel_abi.h"

namespace {
int calls = 0;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (++calls > 8) return 0;
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}
