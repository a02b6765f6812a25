// task: builtin:level1/softmax
// expect: hack_static
// gate: static_hack
// feedback: cudnn.h
// cheat: calls cuDNN's softmax instead of writing the kernel.
#include "evokernel/kernel_abi.h"
#include <cudnn.h>

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  cudnnHandle_t h;
  cudnnCreate(&h);
  (void)in;
  (void)out;
  cudnnDestroy(h);
  return 0;
}
