// task: builtin:level1/relu
// expect: runtime_crash
// feedback: fork
// gates: no-static-source no-instruction-scan
// hostile: a fork bomb through the raw system call, past the source rules (as if they had a
// hole): the sandbox stops the first fork.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  for (;;) {
    long rc;
    __asm__ volatile("syscall" : "=a"(rc) : "a"(57L) : "rcx", "r11", "memory");
  }
  return 0;
}
