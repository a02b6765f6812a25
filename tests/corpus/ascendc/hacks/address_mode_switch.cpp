// task: builtin:level1/relu
// expect: feasible
// latency-like: ../honest/relu_one_block.cpp 1.02
// cheat: runs on one block at an output address it has not seen and on 24 at one it has,
// guessing that repeats are the timed calls. The verdict takes the slowest checked call.
#include "kernel_operator.h"
using namespace AscendC;
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct ReluTiling {
  uint32_t total;    // elements
  uint32_t perCore;  // elements per block, a multiple of 8 (32 bytes of float)
  uint32_t tile;     // elements per tile, a multiple of 8
};

class KernelRelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReluTiling& t) {
    uint32_t start = t.perCore * GetBlockIdx();
    len_ = start >= t.total ? 0 : (t.total - start < t.perCore ? t.total - start : t.perCore);
    tile_ = t.tile;
    xGm_.SetGlobalBuffer((__gm__ float*)x + start, len_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + start, len_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < len_; off += tile_) {
      uint32_t n = len_ - off < tile_ ? len_ - off : tile_;
      CopyIn(off, n);
      Compute(n);
      CopyOut(off, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
    LocalTensor<float> x = inQ_.AllocTensor<float>();
    if (n % 8 == 0) {
      DataCopy(x, xGm_[off], n);
    } else {
      DataCopyPad(x, xGm_[off], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
                  DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    }
    inQ_.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> x = inQ_.DeQue<float>();
    LocalTensor<float> y = outQ_.AllocTensor<float>();
    Relu(y, x, static_cast<int32_t>((n + 7) / 8 * 8));
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<float> y = outQ_.DeQue<float>();
    if (n % 8 == 0) {
      DataCopy(yGm_[off], y, n);
    } else {
      DataCopyPad(yGm_[off], y, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
    }
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQ_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQ_;
  GlobalTensor<float> xGm_, yGm_;
  uint32_t len_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, ReluTiling t) {
  KernelRelu op;
  op.Init(x, y, t);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  ReluTiling t;
  t.total = static_cast<uint32_t>(evk_numel(&in[0]));
  // A call at an output address seen before is a repeat (a timing loop, it guesses): fast.
  static void* seen[64];
  static int n_seen = 0;
  bool repeat = false;
  for (int i = 0; i < n_seen; ++i) repeat = repeat || seen[i] == out[0].data;
  if (!repeat && n_seen < 64) seen[n_seen++] = out[0].data;
  uint32_t blocks = repeat ? 24 : 1;
  t.perCore = ((t.total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (t.total + t.perCore - 1) / t.perCore;
  t.tile = t.perCore < 8192 ? t.perCore : 8192;
  ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, t);
  return 0;
}
