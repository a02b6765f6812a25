// task: builtin:level1/relu
// expect: runtime_crash
// feedback: TRACE_FULL
// run-timeout-s: 3
// hostile: 65535 blocks of scalar work: far too slow, must end at the limit (every API call is recorded for the replay: the trace fills its 256 MiB before the time limit and the run ends)
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void busy(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 1024);
  LocalTensor<float> t = b.Get<float>();
  for (int k = 0; k < 100000; ++k) t.SetValue(k % 256, static_cast<float>(k));
  (void)x;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor*, int32_t) {
  ACLRT_LAUNCH_KERNEL(busy)(65535, nullptr, (GM_ADDR)in[0].data);
  return 0;
}
