// task: builtin:level1/relu
// expect: feasible
// The kernel splits the tensor itself with GetBlockNum(); the host passes only the size.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t total) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  uint32_t per = ((total + GetBlockNum() - 1) / GetBlockNum() + 7) / 8 * 8;
  uint32_t start = per * GetBlockIdx();
  if (start >= total) return;
  uint32_t len = total - start < per ? total - start : per;
  uint32_t tile = len < 4096 ? (len + 7) / 8 * 8 : 4096;
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x + start, len);
  yGm.SetGlobalBuffer((__gm__ float*)y + start, len);
  pipe.InitBuffer(inQ, 2, tile * sizeof(float));
  pipe.InitBuffer(outQ, 2, tile * sizeof(float));
  for (uint32_t off = 0; off < len; off += tile) {
    uint32_t n = len - off < tile ? len - off : tile;
    LocalTensor<float> a = inQ.AllocTensor<float>();
    if (n % 8 == 0) DataCopy(a, xGm[off], n);
    else DataCopyPad(a, xGm[off], DataCopyExtParams(1, n * 4, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    inQ.EnQue(a);
    a = inQ.DeQue<float>();
    LocalTensor<float> b = outQ.AllocTensor<float>();
    Relu(b, a, static_cast<int32_t>((n + 7) / 8 * 8));
    inQ.FreeTensor(a);
    outQ.EnQue(b);
    b = outQ.DeQue<float>();
    if (n % 8 == 0) DataCopy(yGm[off], b, n);
    else DataCopyPad(yGm[off], b, DataCopyExtParams(1, n * 4, 0, 0, 0));
    outQ.FreeTensor(b);
  }
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  uint32_t total = static_cast<uint32_t>(evk_numel(&in[0]));
  ACLRT_LAUNCH_KERNEL(relu_custom)(24, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, total);
  return 0;
}
