// task: builtin:level1/relu
// expect: runtime_crash
// feedback: setxattr
// gates: no-static-source no-instruction-scan
// hostile: adds an extended attribute to /tmp/evk-hostile-canary (outside its folder) with
// setxattr. Against the old filter it succeeded: no xattr call was denied. Now the allowlist
// stops it.
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

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (sys(188, (long)"/tmp/evk-hostile-canary", (long)"user.evk", (long)"x", 1, 0) < 0) return 13;
  return relu(in, out);
}
