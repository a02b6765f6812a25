// task: builtin:level1/relu
// expect: runtime_crash
// feedback: SIGSEGV
// hostile: unbounded recursion with large frames.
#include "evokernel/kernel_abi.h"

namespace {
int deep(int n) {
  volatile char frame[4096];
  frame[n % 4096] = static_cast<char>(n);
  return deep(n + 1) + frame[0];
}
}  // namespace

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) { return deep(0); }
