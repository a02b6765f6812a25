// task: builtin:level1/relu
// expect: runtime_crash
// feedback: execve
// gates: no-static-source no-instruction-scan
// hostile: execve("/bin/sh") with the raw system call, past the source rules: the sandbox
// stops it.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  static const char sh[] = "/bin/sh";
  static const char arg[] = "-c";
  static const char cmd[] = "touch /tmp/evk-hostile-exec-raw";
  const char* argv[] = {sh, arg, cmd, nullptr};
  const char* envp[] = {nullptr};
  long rc;
  __asm__ volatile("syscall" : "=a"(rc) : "a"(59L), "D"(sh), "S"(argv), "d"(envp) : "rcx", "r11", "memory");
  return 1;
}
