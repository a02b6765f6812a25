// task: builtin:level1/relu
// expect: runtime_crash
// gates: no-static-source no-instruction-scan
// feedback: fork
// hostile: a raw fork system call from inside a kernel (no import to see)
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void forker(GM_ADDR) {
  long r;
  asm volatile("syscall" : "=a"(r) : "a"(57L) : "rcx", "r11", "memory");  // SYS_fork
  (void)r;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor*, int32_t) {
  ACLRT_LAUNCH_KERNEL(forker)(1, nullptr, (GM_ADDR)in[0].data);
  return 0;
}
