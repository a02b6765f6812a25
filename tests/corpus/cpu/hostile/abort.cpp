// task: builtin:level1/relu
// expect: runtime_crash
// feedback: SIGABRT
// hostile: aborts.
#include <cstdlib>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  std::abort();
  return 0;
}
