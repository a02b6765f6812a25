// task: builtin:level1/relu
// expect: runtime_crash
// feedback: out of memory
// address-space-mb: 1024
// hostile: allocates and touches memory until something gives.
#include <cstring>
#include <vector>

#include "evokernel/kernel_abi.h"

namespace {
std::vector<char*> hoard;
}

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  for (;;) {
    char* p = new char[64 << 20];
    std::memset(p, 1, 64 << 20);
    hoard.push_back(p);
  }
  return 0;
}
