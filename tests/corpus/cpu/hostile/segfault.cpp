// task: builtin:level1/relu
// expect: runtime_crash
// feedback: SIGSEGV
// hostile: writes through a null pointer.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  volatile float* p = nullptr;
  p[12] = 1.0f;
  return 0;
}
