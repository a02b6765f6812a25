// task: builtin:level1/relu
// expect: runtime_crash
// gates: no-static-source no-instruction-scan
// hostile: creates /tmp/evk-hostile-opencl-file with the raw open system call, past the source
// and symbol rules; Landlock confines the OpenCL runner's files to PoCL's cache, so the open
// fails and the kernel reports it (returns 1). The test also checks that no file appeared.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void unused(__global float* y) { y[0] = 0.0f; }
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  evk_cl::runtime(kSource);
  static const char path[] = "/tmp/evk-hostile-opencl-file";
  long fd;
  // open(path, O_WRONLY | O_CREAT, 0600)
  __asm__ volatile("syscall" : "=a"(fd) : "a"(2L), "D"(path), "S"(0101L), "d"(0600L) : "rcx", "r11", "memory");
  return fd < 0 ? 1 : 0;
}
