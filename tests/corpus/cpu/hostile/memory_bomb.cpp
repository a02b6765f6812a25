// task: builtin:level1/relu
// expect: runtime_crash
// feedback: out of memory
// address-space-mb: 1024
// hostile: allocates and touches memory until something gives.
#include <cstring>
#include <vector>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  static std::vector<char*> hoard;  // function-local: a namespace-scope one is load-time code
  for (;;) {
    char* p = new char[64 << 20];
    std::memset(p, 1, 64 << 20);
    hoard.push_back(p);
  }
  return 0;
}
