// task: builtin:level1/relu
// expect: feasible
// Each block moves the bulk of its slice with DataCopy and finishes its last elements on the
// scalar unit, loading and storing through __gm__ pointers (`y[i] = x[i] > 0 ? x[i] : 0`):
// a few direct GM stores per block, each charged as a scalar GM access.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t kScalarTail = 8;  // elements each block finishes with scalar accesses

class KernelRelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perCore) {
    uint32_t start = perCore * GetBlockIdx();
    len_ = start >= total ? 0 : (total - start < perCore ? total - start : perCore);
    uint32_t tail = len_ % 8 + (len_ >= kScalarTail ? kScalarTail : 0);
    bulk_ = len_ - tail;
    xs_ = (__gm__ float*)x + start;
    ys_ = (__gm__ float*)y + start;
    xGm_.SetGlobalBuffer(xs_, len_);
    yGm_.SetGlobalBuffer(ys_, len_);
    tile_ = bulk_ < 4096 ? (bulk_ > 0 ? bulk_ : 8) : 4096;
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < bulk_; off += tile_) {
      uint32_t n = bulk_ - off < tile_ ? bulk_ - off : tile_;
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      DataCopy(x, xGm_[off], n);
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      Relu(y, x, static_cast<int32_t>(n));
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<float>();
      DataCopy(yGm_[off], y, n);
      outQ_.FreeTensor(y);
    }
    for (uint32_t i = bulk_; i < len_; ++i) {
      float v = xs_[i];
      ys_[i] = v > 0.0f || v != v ? v : 0.0f;
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQ_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQ_;
  GlobalTensor<float> xGm_, yGm_;
  __gm__ float* xs_ = nullptr;
  __gm__ float* ys_ = nullptr;
  uint32_t len_ = 0, bulk_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t total,
                                                  uint32_t perCore) {
  KernelRelu op;
  op.Init(x, y, total, perCore);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  uint32_t total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t blocks = 48;
  uint32_t perCore = ((total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (total + perCore - 1) / perCore;
  ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data,
                                   total, perCore);
  return 0;
}
