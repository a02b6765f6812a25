// task: builtin:level1/relu
// expect: runtime_crash
// hostile: unbounded recursion in a kernel (a stack overflow, not a global-memory access)
#include "kernel_operator.h"
using namespace AscendC;

static int deep(volatile int* p, int n) {
  volatile int local[256];
  local[n % 256] = n;
  return deep(p, n + 1) + local[(n + 1) % 256];
}

extern "C" __global__ __aicore__ void recurse(GM_ADDR) {
  volatile int z = 0;
  deep(&z, GetBlockIdx());
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor*, int32_t) {
  ACLRT_LAUNCH_KERNEL(recurse)(1, nullptr, (GM_ADDR)in[0].data);
  return 0;
}
