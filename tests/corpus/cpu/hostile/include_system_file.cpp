// task: builtin:level1/relu
// expect: hack_static
// hostile: includes a system file outside the whitelist (its contents would land in the
// compiler's error messages).
#include "/etc/passwd"
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) { return 0; }
