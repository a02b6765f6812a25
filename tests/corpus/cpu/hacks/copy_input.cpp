// task: builtin:level1/relu
// expect: mismatch
// gate: correctness
// cheat: copies the input to the output (right for the positive half only).
#include <cstring>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  std::memcpy(out[0].data, in[0].data, sizeof(float) * evk_numel(&in[0]));
  return 0;
}
