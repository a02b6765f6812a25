// task: builtin:level1/relu
// expect: hack_static
// feedback: loaded or unloaded
// (the load-time check now rejects it before it runs; sandbox_test.cpp runs such a constructor
// under the jail directly: KernelRunsJailedFromItsFirstInstruction)
// gates: no-static-source no-instruction-scan
// hostile: a C++ global object whose constructor creates /tmp/evk-hostile-ctor with a raw
// open(2) when the library is loaded. Against the old sandbox it succeeded: the filter went on
// after dlopen, so load-time code ran unfiltered, as root, on the real file system. Now the
// filter and Landlock are on before dlopen (EACCES) and /tmp is the jail's own; the kernel
// reports the failure by returning 13.
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

static long created = -1;
struct AtLoad {
  AtLoad() { created = sys(2, (long)"/tmp/evk-hostile-ctor", 0101, 0644); }
} at_load;

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (created < 0) return 13;
  return relu(in, out);
}
