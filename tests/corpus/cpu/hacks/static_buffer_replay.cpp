// task: builtin:level1/relu
// expect: hack_dynamic
// gate: dynamic_hack
// cheat: computes once into a static buffer, then replays that buffer on every later call.
#include <cstring>
#include <vector>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  static std::vector<float> saved;  // function-local: a namespace-scope one is load-time code
  const int64_t n = evk_numel(&in[0]);
  if (saved.empty()) {
    const float* x = static_cast<const float*>(in[0].data);
    saved.resize(n);
    for (int64_t i = 0; i < n; ++i) saved[i] = x[i] < 0 ? 0 : x[i];
  }
  std::memcpy(out[0].data, saved.data(), sizeof(float) * n);
  return 0;
}
