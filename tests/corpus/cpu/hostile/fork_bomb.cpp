// task: builtin:level1/relu
// expect: hack_static
// hostile: a fork bomb through the C library.
extern "C" int fork();
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  for (;;) fork();
  return 0;
}
