// task: builtin:level1/relu
// expect: hack_static
// hostile: runs a shell command.
#include <cstdlib>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  return std::system("touch /tmp/evk-hostile-exec");
}
