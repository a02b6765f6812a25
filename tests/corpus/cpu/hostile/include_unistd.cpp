// task: builtin:level1/relu
// expect: hack_static
// hostile: includes <unistd.h> for raw I/O and processes.
#include <unistd.h>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) { return 0; }
