// task: builtin:level1/relu
// expect: hack_static
// feedback: loaded or unloaded
// (the load-time check now rejects it before it runs; the jail keeps the files out of reach
// all the same: sandbox_test.cpp, KernelRunsJailedFromItsFirstInstruction)
// gates: no-static-source no-instruction-scan
// hostile: reads /etc/passwd from a global constructor (any host file would do: the workspace
// database, other candidates' sources). Against the old sandbox it succeeded: load-time code ran
// before the filter, on the host's file system. Now /etc in the jail holds only ld.so.cache, and
// the open fails; the kernel reports it by returning 13.
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

static long got = -1;
struct AtLoad {
  AtLoad() {
    char buf[64];
    long fd = sys(2, (long)"/etc/passwd", 0, 0);
    if (fd >= 0) got = sys(0, fd, (long)buf, sizeof buf);
  }
} at_load;

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (got <= 0) return 13;
  return relu(in, out);
}
