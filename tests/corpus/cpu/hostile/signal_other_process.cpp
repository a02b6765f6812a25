// task: builtin:level1/relu
// expect: runtime_crash
// feedback: rt_sigqueueinfo
// gates: no-static-source no-instruction-scan
// hostile: signals a process that is not its own with rt_sigqueueinfo (signal 0 here, a
// probe; with SIGKILL this killed an unrelated process). Against the old filter it succeeded:
// only kill and tgkill were checked. Now signals go to itself only.
#include "evokernel/kernel_abi.h"

static long sys(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  long r;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return r;
}

static int relu(const evk_tensor* in, evk_tensor* out) {
  const float* x = (const float*)in[0].data;
  float* y = (float*)out[0].data;
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}

#include <signal.h>

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  siginfo_t info{};
  info.si_code = -1;  // SI_QUEUE
  long rc = sys(129, sys(110), 0, (long)&info);  // rt_sigqueueinfo(getppid(), 0, ...)
  if (rc < 0) return 13;
  return relu(in, out);
}
