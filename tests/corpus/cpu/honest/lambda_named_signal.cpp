// task: builtin:level1/sigmoid
// expect: feasible
// honest: a lambda named `signal` and a local `time` step counter; the old rules rejected the
// names as "signal handlers" and (in CUDA) "timers".
#include <cmath>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  auto signal = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
  int64_t time = 0;
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i, ++time) y[i] = signal(x[i]);
  return time < 0;
}
