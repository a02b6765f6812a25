// task: builtin:level1/leaky_relu
// expect: feasible
// A CANN operator with an attribute: the tiling function reads negative_slope from
// GetAttrs() and puts it in the tiling data; the kernel is a class template over the dtype
// (DTYPE_X as CANN's build defines it from the op prototype), uses LeakyRelu and a tiling key
// that separates the aligned case from the one with a tail.
#include "kernel_operator.h"
#include "register/op_def_registry.h"

#define DTYPE_X float
#define DTYPE_Y float

namespace optiling {
BEGIN_TILING_DATA_DEF(LeakyReluTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, negativeSlope);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LeakyReluCustom, LeakyReluTilingData)
}  // namespace optiling

using namespace AscendC;

template <typename T, bool HAS_TAIL>
class KernelLeakyRelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t block, uint32_t tile,
                              float slope) {
    uint32_t start = block * GetBlockIdx();
    length_ = total - start < block ? total - start : block;
    tile_ = tile;
    slope_ = slope;
    xGm_.SetGlobalBuffer((__gm__ T*)x + start, length_);
    yGm_.SetGlobalBuffer((__gm__ T*)y + start, length_);
    pipe_.InitBuffer(inQ_, 2, tile_ * sizeof(T));
    pipe_.InitBuffer(outQ_, 2, tile_ * sizeof(T));
  }
  __aicore__ inline void Process() {
    constexpr uint32_t kPerBlock = 32 / sizeof(T);
    for (uint32_t off = 0; off < length_; off += tile_) {
      uint32_t n = length_ - off < tile_ ? length_ - off : tile_;
      uint32_t padded = (n + kPerBlock - 1) / kPerBlock * kPerBlock;
      LocalTensor<T> x = inQ_.template AllocTensor<T>();
      DataCopy(x, xGm_[off], padded);
      inQ_.EnQue(x);
      LocalTensor<T> xin = inQ_.template DeQue<T>();
      LocalTensor<T> y = outQ_.template AllocTensor<T>();
      LeakyRelu(y, xin, static_cast<T>(slope_), static_cast<int32_t>(padded));
      outQ_.EnQue(y);
      inQ_.FreeTensor(xin);
      LocalTensor<T> yout = outQ_.template DeQue<T>();
      if constexpr (HAS_TAIL) {
        DataCopyPad(yGm_[off], yout, DataCopyExtParams(1, n * sizeof(T), 0, 0, 0));
      } else {
        DataCopy(yGm_[off], yout, n);
      }
      outQ_.FreeTensor(yout);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inQ_;
  TQue<TPosition::VECOUT, 2> outQ_;
  GlobalTensor<T> xGm_, yGm_;
  uint32_t length_ = 0, tile_ = 0;
  float slope_ = 0;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                        GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(t, tiling);
  if (TILING_KEY_IS(1)) {
    KernelLeakyRelu<DTYPE_X, false> op;
    op.Init(x, y, t.totalLength, t.blockLength, t.tileLength, t.negativeSlope);
    op.Process();
  } else if (TILING_KEY_IS(2)) {
    KernelLeakyRelu<DTYPE_X, true> op;
    op.Init(x, y, t.totalLength, t.blockLength, t.tileLength, t.negativeSlope);
    op.Process();
  }
}

namespace optiling {
static ge::graphStatus LeakyReluTiling(gert::TilingContext* context) {
  LeakyReluTilingData tiling;
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint32_t cores = platform.GetCoreNum();
  uint32_t total = static_cast<uint32_t>(context->GetInputTensor(0)->GetShapeSize());
  const float* slope = context->GetAttrs()->GetAttrPointer<float>(0);
  if (slope == nullptr) return ge::GRAPH_FAILED;
  uint32_t block = ((total + cores - 1) / cores + 7) / 8 * 8;
  uint32_t tile = block < 8192 ? block : 8192;
  tiling.set_totalLength(total);
  tiling.set_blockLength(block);
  tiling.set_tileLength(tile);
  tiling.set_negativeSlope(*slope);
  // Key 1: every tile is whole 32-byte blocks (block and tile lengths are multiples of 8, so
  // only the total can leave a tail).
  context->SetTilingKey(total % 8 == 0 ? 1 : 2);
  context->SetBlockDim((total + block - 1) / block);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class LeakyReluCustom : public OpDef {
 public:
  explicit LeakyReluCustom(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.01f);
    this->AICore().SetTiling(optiling::LeakyReluTiling).AddConfig("ascend910b");
  }
};
OP_ADD(LeakyReluCustom);
}  // namespace ops

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::LeakyReluTiling, leaky_relu_custom, in, n_in, out, n_out,
                         {0.01});
}
