// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// cheat: a raw system call through the C library's syscall() (declared by hand).
#include "evokernel/kernel_abi.h"

extern "C" long syscall(long number, ...);

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  syscall(39);  // getpid
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}
