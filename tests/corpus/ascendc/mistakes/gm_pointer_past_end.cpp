// task: builtin:level1/relu
// expect: runtime_crash
// feedback: [GM_OUT_OF_BOUNDS]
// mistake: the scalar tail loop through __gm__ pointers runs one tile past the tensor: a load
// past the allocation's round-up is out of bounds, through a pointer as through DataCopy.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t n) {
  if (GetBlockIdx() != 0) return;
  __gm__ float* xs = (__gm__ float*)x;
  __gm__ float* ys = (__gm__ float*)y;
  for (uint32_t i = n - 8; i < n + 1024; ++i) {  // should stop at n
    float v = xs[i];
    ys[i % n] = v < 0 ? 0.0f : v;
  }
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  ACLRT_LAUNCH_KERNEL(relu_custom)(1, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data,
                                   (uint32_t)evk_numel(&in[0]));
  return 0;
}
