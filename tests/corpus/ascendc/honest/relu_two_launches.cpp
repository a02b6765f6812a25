// task: builtin:level1/relu
// expect: feasible
// Two launches, each over half of the tensor (a host loop over chunks).
#include "kernel_operator.h"
using namespace AscendC;

template <typename T, int32_t BUFS>
class KernelRelu {
 public:
  __aicore__ inline KernelRelu() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perCore, uint32_t tile) {
    uint32_t start = perCore * GetBlockIdx();
    len_ = start >= total ? 0 : (total - start < perCore ? total - start : perCore);
    tile_ = tile;
    xGm_.SetGlobalBuffer((__gm__ T*)x + start, len_);
    yGm_.SetGlobalBuffer((__gm__ T*)y + start, len_);
    pipe_.InitBuffer(inQueueX_, BUFS, tile_ * sizeof(T));
    pipe_.InitBuffer(outQueueY_, BUFS, tile_ * sizeof(T));
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
    Relu(y, x, padded);
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
  GlobalTensor<T> xGm_, yGm_;
  uint32_t len_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perCore,
                                                uint32_t tile) {
  KernelRelu<float, 2> op;
  op.Init(x, y, total, perCore, tile);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  uint32_t total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t half = (total / 2 + 7) / 8 * 8;
  for (uint32_t start = 0; start < total; start += half) {
    uint32_t n = total - start < half ? total - start : half;
    uint32_t perCore = ((n + 23) / 24 + 7) / 8 * 8;
    uint32_t blocks = (n + perCore - 1) / perCore;
    uint32_t tile = perCore < 8192 ? perCore : 8192;
    GM_ADDR x = (GM_ADDR)in[0].data + start * sizeof(float);
    GM_ADDR y = (GM_ADDR)out[0].data + start * sizeof(float);
    ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, x, y, n, perCore, tile);
  }
  return 0;
}
