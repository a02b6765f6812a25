// task: builtin:level1/relu
// expect: feasible
// Helpers named write, open, signal and thread, and a local `bool write`: names the
// old spelling rules refused, harmless in the preprocessed unit.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct Tiling {
  uint32_t total, perCore, tile;
};

// The block's share: which "thread" of the launch this block is.
__aicore__ inline uint32_t thread(uint32_t perCore) { return perCore * GetBlockIdx(); }

class ReluOp {
 public:
  __aicore__ inline void open(GM_ADDR x, GM_ADDR y, const Tiling& t) {
    uint32_t start = thread(t.perCore);
    len_ = start >= t.total ? 0 : (t.total - start < t.perCore ? t.total - start : t.perCore);
    tile_ = t.tile;
    xGm_.SetGlobalBuffer((__gm__ float*)x + start, len_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + start, len_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_ * sizeof(float));
  }
  __aicore__ inline void run() {
    for (uint32_t off = 0; off < len_; off += tile_) {
      uint32_t n = len_ - off < tile_ ? len_ - off : tile_;
      read(off, n);
      signal(n);
      write(off, n);
    }
  }

 private:
  __aicore__ inline void read(uint32_t off, uint32_t n) {
    LocalTensor<float> x = inQ_.AllocTensor<float>();
    if (n % 8 == 0) {
      DataCopy(x, xGm_[off], n);
    } else {
      DataCopyPad(x, xGm_[off], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
                  DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    }
    inQ_.EnQue(x);
  }
  // "signal" as in signal processing: the activation.
  __aicore__ inline void signal(uint32_t n) {
    LocalTensor<float> x = inQ_.DeQue<float>();
    LocalTensor<float> y = outQ_.AllocTensor<float>();
    Relu(y, x, static_cast<int32_t>((n + 7) / 8 * 8));
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
  }
  __aicore__ inline void write(uint32_t off, uint32_t n) {
    LocalTensor<float> y = outQ_.DeQue<float>();
    bool whole = n % 8 == 0;
    if (whole) {
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

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, Tiling t) {
  ReluOp op;
  op.open(x, y, t);
  op.run();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  Tiling t;
  t.total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t blocks = 24;
  t.perCore = ((t.total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (t.total + t.perCore - 1) / t.perCore;
  t.tile = t.perCore < 8192 ? t.perCore : 8192;
  bool write = blocks > 0;  // a local named like the raw I/O call
  if (write) ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, t);
  return 0;
}
