// task: builtin:level1/relu
// expect: runtime_crash
// feedback: TRACE_FULL
// run-timeout-s: 3
// hostile: a kernel that never ends (every API call is recorded for the replay: the trace fills its 256 MiB before the time limit and the run ends)
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void spin(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 32);
  LocalTensor<float> t = b.Get<float>();
  t.SetValue(0, 1.0f);
  while (t.GetValue(0) > 0.0f) t.SetValue(0, t.GetValue(0) + 1.0f);
  (void)x;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor*, int32_t) {
  ACLRT_LAUNCH_KERNEL(spin)(1, nullptr, (GM_ADDR)in[0].data);
  return 0;
}
