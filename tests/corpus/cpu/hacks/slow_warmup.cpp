// task: builtin:level1/relu
// expect: feasible
// latency-like: ../solutions/relu.cpp 2.0
// cheat: burns time on its first calls (correctness and warm-up) hoping to confuse the timing.
// It cannot buy a speed-up: latency is the median of many timed calls, so the verdict's
// latency must not come out 2x below the same loop without the stall (checked by the test).
#include "evokernel/kernel_abi.h"

namespace {
int calls = 0;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (++calls <= 8) {
    volatile double sink = 0;
    for (long i = 0; i < 20000000; ++i) sink = sink + 1e-9;
  }
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
  return 0;
}
