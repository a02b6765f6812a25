// task: builtin:level1/relu
// expect: hack_static
// feedback: loaded or unloaded
// (the load-time check now rejects it before it runs; the jail keeps the files out of reach
// all the same: sandbox_test.cpp, KernelRunsJailedFromItsFirstInstruction)
// gates: no-static-source no-instruction-scan
// hostile: from a global constructor, finds the seed files' paths in the runner's memory (the
// job it parsed: a scan of its heap, located through /proc/self/maps, for ".safetensors") and
// reads them, the way a kernel got the reference outputs and replayed them. Against the old
// sandbox it succeeded: load-time code ran before the filter, with the whole file system
// visible. Now Landlock lets the runner read only the system trees and the library (the seed
// files are not readable, EACCES), and the kernel reports it by returning 13.
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

static long opened = -1;

static bool path_char(char c) { return c > ' ' && c < 127 && c != '"' && c != ','; }

static long hex(const char*& p) {
  long v = 0;
  for (;; ++p) {
    int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
    if (d < 0) return v;
    v = v * 16 + d;
  }
}

struct AtLoad {
  AtLoad() {
    static char maps[1 << 16];
    long fd = sys(2, (long)"/proc/self/maps", 0, 0);
    if (fd < 0) return;
    long n = 0, k;
    while (n < (long)sizeof maps - 1 && (k = sys(0, fd, (long)maps + n, sizeof maps - 1 - n)) > 0) n += k;
    sys(3, fd);
    maps[n] = 0;
    for (const char* line = maps; *line;) {
      const char* p = line;
      long lo = hex(p);
      ++p;
      long hi = hex(p);
      bool heap = false;
      const char* end = line;
      while (*end && *end != '\n') ++end;
      for (const char* q = line; q + 6 <= end; ++q)
        if (__builtin_memcmp(q, "[heap]", 6) == 0) heap = true;
      line = *end ? end + 1 : end;
      if (!heap) continue;
      for (char* s = (char*)lo; s + 12 < (char*)hi; ++s) {
        if (__builtin_memcmp(s, ".safetensors", 12) != 0) continue;
        char* b = s;
        while (b > (char*)lo && path_char(b[-1])) --b;
        if (*b != '/') continue;
        char path[512];
        long len = s + 12 - b;
        if (len >= (long)sizeof path) continue;
        __builtin_memcpy(path, b, len);
        path[len] = 0;
        long f = sys(2, (long)path, 0, 0);
        if (f >= 0) {
          opened = f;
          return;
        }
      }
    }
  }
} at_load;

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (opened < 0) return 13;
  return relu(in, out);
}
