// task: builtin:level1/relu
// expect: hack_static
// hostile: writes a file outside its folder.
#include <cstdio>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  std::FILE* f = std::fopen("/tmp/evk-hostile-written", "w");
  if (f) std::fputs("pwned\n", f), std::fclose(f);
  return 0;
}
