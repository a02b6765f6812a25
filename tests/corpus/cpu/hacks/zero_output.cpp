// task: builtin:level1/sigmoid
// expect: mismatch
// gate: correctness
// cheat: returns zeros (right for nothing, but fools a check that only looks for NaN).
#include <cstring>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor* out, int32_t) {
  std::memset(out[0].data, 0, sizeof(float) * evk_numel(&out[0]));
  return 0;
}
