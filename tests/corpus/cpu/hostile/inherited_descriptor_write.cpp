// task: builtin:level1/relu
// expect: hack_dynamic
// feedback: changed after evk_forward returned
// (the only descriptors left are the job's own: the output slots are a memfd, a regular file, so
// it scribbles over them, and the parent's snapshot after the call catches it)
// gates: no-static-source no-instruction-scan
// hostile: looks for descriptors it did not open (numbers 3 to 255 that are regular files other
// than its outputs) and writes into them: whatever the caller left open without close-on-exec.
// Against the old runner it succeeded: run_process closed nothing. Now the child closes every
// descriptor but the ones it is given; finding none, the kernel returns 13.
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
  int hit = 0;
  for (long fd = 3; fd < 256; ++fd) {
    char link[32] = "/proc/self/fd/", target[256] = {};
    int n = 14;
    if (fd >= 100) link[n++] = (char)('0' + fd / 100);
    if (fd >= 10) link[n++] = (char)('0' + fd / 10 % 10);
    link[n++] = (char)('0' + fd % 10);
    long len = sys(89, (long)link, (long)target, sizeof target - 1);  // readlink
    if (len <= 0 || target[0] != '/') continue;                       // pipes, sockets
    bool outputs = len >= 11 && __builtin_memcmp(target + len - 11, "outputs.bin", 11) == 0;
    if (!outputs && sys(1, fd, (long)"evk", 3) == 3) ++hit;  // write
  }
  if (!hit) return 13;
  return relu(in, out);
}
