// task: builtin:level1/sigmoid
// expect: feasible
// The tiling struct read field by field through a __gm__ pointer, as kernels written before
// GET_TILING_DATA do: `__gm__ uint32_t* t = (__gm__ uint32_t*)tiling; total = t[0];`. Each is
// a scalar GM load (legal Ascend C, charged like GlobalTensor::GetValue); the rest is the
// kernel-invocation sigmoid.
#include "acl/acl.h"
#include "kernel_operator.h"
#include "tiling/platform/platform_ascendc.h"

struct SigmoidTilingData {
  uint32_t totalLength;
  uint32_t blockLength;
  uint32_t tileLength;
};

using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;

class KernelSigmoid {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
    __gm__ uint32_t* t = (__gm__ uint32_t*)tiling;
    uint32_t total = t[0], block = t[1];
    tile_ = t[2];
    uint32_t start = block * GetBlockIdx();
    length_ = total - start < block ? total - start : block;
    xGm_.SetGlobalBuffer((__gm__ float*)x + start, length_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + start, length_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_ * sizeof(float));
    pipe_.InitBuffer(tmp_, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      uint32_t padded = (n + 7) / 8 * 8;
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      DataCopy(x, xGm_[off], padded);
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      LocalTensor<uint8_t> shared = tmp_.Get<uint8_t>();
      Sigmoid(y, x, shared, padded);
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<float>();
      DataCopyPad(yGm_[off], y, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQ_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQ_;
  TBuf<TPosition::VECCALC> tmp_;
  GlobalTensor<float> xGm_, yGm_;
  uint32_t length_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void sigmoid_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                     GM_ADDR tiling) {
  (void)workspace;
  KernelSigmoid op;
  op.Init(x, y, tiling);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  uint32_t cores = platform->GetCoreNumAiv();
  SigmoidTilingData t;
  t.totalLength = static_cast<uint32_t>(evk_numel(&in[0]));
  t.blockLength = ((t.totalLength + cores - 1) / cores + 7) / 8 * 8;
  t.tileLength = t.blockLength < 8192 ? t.blockLength : 8192;
  uint32_t blockDim = (t.totalLength + t.blockLength - 1) / t.blockLength;
  void* tilingDevice = nullptr;
  aclrtMalloc(&tilingDevice, sizeof t, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(tilingDevice, sizeof t, &t, sizeof t, ACL_MEMCPY_HOST_TO_DEVICE);
  ACLRT_LAUNCH_KERNEL(sigmoid_custom)(blockDim, nullptr, (GM_ADDR)in[0].data,
                                      (GM_ADDR)out[0].data, nullptr, (GM_ADDR)tilingDevice);
  aclrtFree(tilingDevice);
  return 0;
}
