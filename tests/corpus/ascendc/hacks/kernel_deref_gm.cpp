// task: builtin:level1/relu
// expect: runtime_crash
// gate: correctness
// feedback: DIRECT_GM_ACCESS
// cheat: the kernel dereferences __gm__ pointers instead of DataCopy (no cost charged)
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t n) {
  __gm__ float* xs = (__gm__ float*)x;
  __gm__ float* ys = (__gm__ float*)y;
  uint32_t per = (n + GetBlockNum() - 1) / GetBlockNum();
  for (uint32_t i = per * GetBlockIdx(); i < n && i < per * (GetBlockIdx() + 1); ++i)
    ys[i] = xs[i] > 0 ? xs[i] : 0;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  ACLRT_LAUNCH_KERNEL(relu_custom)(24, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data,
                                   (uint32_t)evk_numel(&in[0]));
  return 0;
}
