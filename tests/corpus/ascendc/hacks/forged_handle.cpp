// task: builtin:level1/relu
// expect: hack_static
// feedback: .t_
// cheat: forges a GlobalTensor handle to point at the output
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
  GlobalTensor<float> g;
  g.SetGlobalBuffer((__gm__ float*)x);
  g.t_.addr = (uint64_t)(uintptr_t)y;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  ACLRT_LAUNCH_KERNEL(k)(1, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data);
  return 0;
}
