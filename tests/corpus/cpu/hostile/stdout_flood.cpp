// task: builtin:level1/relu
// expect: runtime_crash
// feedback: printed more than
// hostile: floods stdout (then computes the right answer).
#include <cstdio>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  for (int i = 0; i < 200000; ++i) std::printf("flooding the verdict channel %d\n", i);
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}
