// task: builtin:level1/relu
// expect: runtime_crash
// feedback: clone
// gates: no-static-source no-instruction-scan
// hostile: forks with the raw system call, past the source and symbol rules: the sandbox
// stops it (the OpenCL runner keeps the CPU runner's process rules).
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void unused(__global float* y) { y[0] = 0.0f; }
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  evk_cl::runtime(kSource);
  long pid;
  // clone(SIGCHLD, 0): a new process, as fork() does.
  __asm__ volatile("syscall" : "=a"(pid) : "a"(56L), "D"(17L), "S"(0L), "d"(0L) : "rcx", "r11", "memory");
  if (pid == 0) __asm__ volatile("syscall" : : "a"(60L), "D"(0L));
  return 0;
}
