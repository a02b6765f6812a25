// task: builtin:level1/sigmoid
// expect: feasible
// Sigmoid with single-buffered queues (copy and compute serialised).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

struct Tiling {
  uint32_t total, perCore, tile;
};

extern "C" __global__ __aicore__ void sigmoid_custom(GM_ADDR x, GM_ADDR y, Tiling t) {
  TPipe pipe;
  TQue<TPosition::VECIN, BUFFER_NUM> inQ;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQ;
  GlobalTensor<float> xGm, yGm;
  uint32_t start = t.perCore * GetBlockIdx();
  if (start >= t.total) return;
  uint32_t len = t.total - start < t.perCore ? t.total - start : t.perCore;
  xGm.SetGlobalBuffer((__gm__ float*)x + start, len);
  yGm.SetGlobalBuffer((__gm__ float*)y + start, len);
  pipe.InitBuffer(inQ, BUFFER_NUM, t.tile * sizeof(float));
  pipe.InitBuffer(outQ, BUFFER_NUM, t.tile * sizeof(float));
  for (uint32_t off = 0; off < len; off += t.tile) {
    uint32_t n = len - off < t.tile ? len - off : t.tile;
    uint32_t padded = (n + 7) / 8 * 8;
    LocalTensor<float> xl = inQ.AllocTensor<float>();
    if (n == padded) DataCopy(xl, xGm[off], n);
    else DataCopyPad(xl, xGm[off], DataCopyExtParams(1, n * 4, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    inQ.EnQue(xl);
    xl = inQ.DeQue<float>();
    LocalTensor<float> yl = outQ.AllocTensor<float>();
    Muls(yl, xl, -1.0f, padded);
    Exp(yl, yl, padded);
    Adds(yl, yl, 1.0f, padded);
    Reciprocal(yl, yl, padded);
    inQ.FreeTensor(xl);
    outQ.EnQue(yl);
    yl = outQ.DeQue<float>();
    if (n == padded) DataCopy(yGm[off], yl, n);
    else DataCopyPad(yGm[off], yl, DataCopyExtParams(1, n * 4, 0, 0, 0));
    outQ.FreeTensor(yl);
  }
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  Tiling t;
  t.total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t blocks = 24;
  t.perCore = ((t.total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (t.total + t.perCore - 1) / t.perCore;
  t.tile = t.perCore < 8192 ? t.perCore : 8192;
  ACLRT_LAUNCH_KERNEL(sigmoid_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, t);
  return 0;
}
