// calibration: exp_32m
// published_us: 209.1
// published: torch.exp reads float32 at 642 GB/s (counting the input only): 128 MiB / 642 GB/s
// source: https://github.com/gameofdimension/limulidae (README "显存带宽"; bench_membw.py)
// chip: Ascend 910B, CANN 8.0.0.beta1, torch_npu 2.4.0.post2
// eager: yes (the published run is the task's PyTorch code)
// measure: device (torch.npu events around one operator; the plateau of a 100 MB..8 GB sweep)
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCKS = 48;

struct Tiling {
  uint32_t total;    // elements
  uint32_t perCore;  // elements per block, a multiple of 8
  uint32_t tile;     // elements per tile, a multiple of 8
};

class KernelUnary {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const Tiling& t) {
    uint32_t start = t.perCore * GetBlockIdx();
    len_ = t.total - start < t.perCore ? t.total - start : t.perCore;
    tile_ = t.tile;
    xGm_.SetGlobalBuffer((__gm__ float*)x + start, len_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + start, len_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < len_; off += tile_) {
      uint32_t n = len_ - off < tile_ ? len_ - off : tile_;
      uint32_t padded = (n + 7) / 8 * 8;  // inside the allocator's round-up
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      DataCopy(x, xGm_[off], padded);
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      Exp(y, x, padded);
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<float>();
      if (n == padded) {
        DataCopy(yGm_[off], y, n);
      } else {
        DataCopyPad(yGm_[off], y, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
      }
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQ_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQ_;
  GlobalTensor<float> xGm_, yGm_;
  uint32_t len_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void unary_custom(GM_ADDR x, GM_ADDR y, Tiling t) {
  KernelUnary op;
  op.Init(x, y, t);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  Tiling t;
  t.total = static_cast<uint32_t>(evk_numel(&in[0]));
  t.perCore = ((t.total + BLOCKS - 1) / BLOCKS + 7) / 8 * 8;
  uint32_t blocks = (t.total + t.perCore - 1) / t.perCore;
  t.tile = t.perCore < 8192 ? t.perCore : 8192;
  ACLRT_LAUNCH_KERNEL(unary_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, t);
  return 0;
}
