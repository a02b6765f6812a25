// task: builtin:level1/sigmoid
// expect: feasible
// The CANN operator layout: a class with Init and Process, CopyIn/Compute/CopyOut stages,
// and a TBuf<VECCALC> scratch for the denominator.
#include "kernel_operator.h"
using namespace AscendC;

template <typename T, int32_t BUFS>
class KernelSigmoid {
 public:
  __aicore__ inline KernelSigmoid() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perCore, uint32_t tile) {
    uint32_t start = perCore * GetBlockIdx();
    len_ = start >= total ? 0 : (total - start < perCore ? total - start : perCore);
    tile_ = tile;
    xGm_.SetGlobalBuffer((__gm__ T*)x + start, len_);
    yGm_.SetGlobalBuffer((__gm__ T*)y + start, len_);
    pipe_.InitBuffer(inQueueX_, BUFS, tile_ * sizeof(T));
    pipe_.InitBuffer(outQueueY_, BUFS, tile_ * sizeof(T));
    pipe_.InitBuffer(calc_, tile_ * sizeof(T));
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
    LocalTensor<T> x = inQueueX_.template AllocTensor<T>();
    if (n * sizeof(T) % 32 == 0) {
      DataCopy(x, xGm_[off], n);
    } else {
      DataCopyPad(x, xGm_[off], DataCopyExtParams(1, n * sizeof(T), 0, 0, 0),
                  DataCopyPadExtParams<T>(false, 0, 0, static_cast<T>(0)));
    }
    inQueueX_.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> x = inQueueX_.template DeQue<T>();
    LocalTensor<T> y = outQueueY_.template AllocTensor<T>();
    int32_t padded = static_cast<int32_t>((n * sizeof(T) + 31) / 32 * 32 / sizeof(T));
    LocalTensor<T> d = calc_.template Get<T>();
    Muls(d, x, static_cast<T>(-1), padded);
    Exp(d, d, padded);
    Adds(d, d, static_cast<T>(1), padded);
    Reciprocal(y, d, padded);
    outQueueY_.EnQue(y);
    inQueueX_.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<T> y = outQueueY_.template DeQue<T>();
    if (n * sizeof(T) % 32 == 0) {
      DataCopy(yGm_[off], y, n);
    } else {
      DataCopyPad(yGm_[off], y, DataCopyExtParams(1, n * sizeof(T), 0, 0, 0));
    }
    outQueueY_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFS> inQueueX_;
  TQue<TPosition::VECOUT, BUFS> outQueueY_;
  TBuf<TPosition::VECCALC> calc_;
  GlobalTensor<T> xGm_, yGm_;
  uint32_t len_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void sigmoid_custom(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perCore,
                                                uint32_t tile) {
  KernelSigmoid<float, 2> op;
  op.Init(x, y, total, perCore, tile);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  uint32_t total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t blocks = 24;
  uint32_t perCore = ((total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (total + perCore - 1) / perCore;
  uint32_t tile = perCore < 4096 ? perCore : 4096;
  ACLRT_LAUNCH_KERNEL(sigmoid_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, total, perCore, tile);
  return 0;
}
