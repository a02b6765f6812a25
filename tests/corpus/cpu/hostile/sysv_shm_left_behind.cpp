// task: builtin:level1/relu
// expect: runtime_crash
// feedback: shmget
// gates: no-static-source no-instruction-scan
// hostile: creates a System V shared memory segment (key 0x45564b31) that outlives the run: a
// channel between candidates, and litter on the machine. Against the old filter it succeeded:
// SysV IPC was not denied and the runner shared the host's IPC namespace. Now the allowlist stops
// shmget (and the jail has its own IPC namespace).
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
  long id = sys(29, 0x45564b31, 4096, 01000 | 0666);  // shmget(key, 4096, IPC_CREAT | 0666)
  if (id < 0) return 13;
  return relu(in, out);
}
