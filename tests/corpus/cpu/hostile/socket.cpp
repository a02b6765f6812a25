// task: builtin:level1/relu
// expect: hack_static
// hostile: opens a network socket.
extern "C" int socket(int, int, int);
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  return socket(2, 1, 0) >= 0 ? 0 : 1;
}
