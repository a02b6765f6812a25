// task: builtin:level1/relu
// expect: runtime_crash
// feedback: timer_create
// gates: no-static-source no-instruction-scan
// hostile: creates a POSIX timer (glibc's SIGEV_THREAD timers are timer_create plus a helper
// thread), a way to get a second thread of work against a one-thread baseline. Against the old
// filter it succeeded. Now the allowlist stops timer_create.
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
  sigevent ev{};
  ev.sigev_notify = SIGEV_NONE;
  int timer = 0;
  if (sys(222, 1, (long)&ev, (long)&timer) < 0) return 13;  // timer_create(CLOCK_MONOTONIC)
  return relu(in, out);
}
