// task: builtin:level1/relu
// expect: runtime_crash
// feedback: socket
// gates: no-static-source no-instruction-scan
// hostile: opens a socket with the raw system call, past the source rules: the sandbox stops it.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  long fd;
  __asm__ volatile("syscall" : "=a"(fd) : "a"(41L), "D"(2L), "S"(1L), "d"(0L) : "rcx", "r11", "memory");
  return fd < 0 ? 1 : 0;
}
