// task: builtin:level1/silu
// expect: feasible
// SiLU as x * Sigmoid(x): the sigmoid into a TBuf scratch, then a Mul.
#include "kernel_operator.h"
#include "register/op_def_registry.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SiluCustom, TilingData)
}  // namespace optiling

using namespace AscendC;

class KernelSiluCustom {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                              uint32_t tileLength) {
    uint32_t start = blockLength * GetBlockIdx();
    length_ = totalLength - start < blockLength ? totalLength - start : blockLength;
    tile_ = tileLength;
    xGm_.SetGlobalBuffer((__gm__ float*)x + start, length_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + start, length_);
    pipe_.InitBuffer(inQ_, 2, tile_ * sizeof(float));
    pipe_.InitBuffer(outQ_, 2, tile_ * sizeof(float));
    pipe_.InitBuffer(tmp_, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      CopyIn(off, n);
      Compute((n + 7) / 8 * 8);
      CopyOut(off, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
    LocalTensor<float> x = inQ_.AllocTensor<float>();
    DataCopyPad(x, xGm_[off], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
                DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    inQ_.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> x = inQ_.DeQue<float>();
    LocalTensor<float> y = outQ_.AllocTensor<float>();
    LocalTensor<float> tmp = tmp_.Get<float>();
    int32_t count = static_cast<int32_t>(n);
    (void)count;
    (void)tmp;
    Sigmoid(tmp, x, n);
    Mul(y, x, tmp, count);
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
    tmp_.FreeTensor(tmp);
  }
  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<float> y = outQ_.DeQue<float>();
    DataCopyPad(yGm_[off], y, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inQ_;
  TQue<TPosition::VECOUT, 2> outQ_;
  TBuf<TPosition::VECCALC> tmp_;
  GlobalTensor<float> xGm_, yGm_;
  uint32_t length_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void silu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(tilingData, tiling);
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  KernelSiluCustom op;
  op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
  op.Process();
}

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  TilingData tiling;
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint32_t coreNum = platform.GetCoreNumAiv();
  uint64_t ubSize = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
  uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
  uint32_t block = ((total + coreNum - 1) / coreNum + 7) / 8 * 8;
  // Five buffers of a tile (two queues double-buffered, one scratch) in UB.
  uint32_t tileMax = static_cast<uint32_t>(ubSize / (5 * sizeof(float))) / 64 * 64;
  uint32_t tile = block < tileMax ? block : tileMax;
  tiling.set_totalLength(total);
  tiling.set_blockLength(block);
  tiling.set_tileLength(tile < 8192 ? tile : 8192);
  context->SetBlockDim((total + block - 1) / block);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::TilingFunc, silu_custom, in, n_in, out, n_out);
}
