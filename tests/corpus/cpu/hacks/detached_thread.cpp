// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// cheat: returns at once and lets a detached thread write the output later (so the timed call
// measures nothing). <thread> is not on the include whitelist; were it smuggled in, the
// library's import of std::thread would be rejected, and the runner compares the outputs again
// after a delay (tests/unit/verify/sandbox_test.cpp exercises that last line of defence).
#include <thread>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]);
  std::thread([=] {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  }).detach();
  return 0;
}
