// task: builtin:level1/relu
// expect: runtime_crash
// feedback: returned
// gates: no-static-source no-instruction-scan
// hostile: creates a file outside its folder with a raw open(2), past the source rules: the
// sandbox makes the open fail (EACCES), and the kernel reports the failure.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  static const char path[] = "/tmp/evk-hostile-written-raw";
  long fd;
  __asm__ volatile("syscall" : "=a"(fd) : "a"(2L), "D"(path), "S"(0101L), "d"(0644L) : "rcx", "r11", "memory");
  return fd < 0 ? 13 : 0;
}
