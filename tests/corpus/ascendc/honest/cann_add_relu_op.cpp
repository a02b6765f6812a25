// task: builtin:level1/relu
// expect: feasible
// A CANN operator project in one file, as its op_host and op_kernel parts are written: the
// tiling struct declared with the tiling-data macros, a host TilingFunc reading the shape and
// the platform (GetCoreNum, GetCoreMemSize(UB)), the OpDef, and a kernel that takes
// (x, y, workspace, tiling) and reads its tiling with GET_TILING_DATA. Only evk_forward is
// evokernel's: EVK_RUN_CANN_OP stands for CANN's generated launch.
#include "kernel_operator.h"
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

// ---- op_host/relu_custom_tiling.h ----
namespace optiling {
BEGIN_TILING_DATA_DEF(ReluCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ReluCustom, ReluCustomTilingData)
}  // namespace optiling

// ---- op_kernel/relu_custom.cpp ----
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;

class KernelRelu {
 public:
  __aicore__ inline KernelRelu() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                              uint32_t tileLength) {
    uint32_t start = blockLength * GetBlockIdx();
    this->length = totalLength - start < blockLength ? totalLength - start : blockLength;
    this->tileLength = tileLength;
    xGm.SetGlobalBuffer((__gm__ float*)x + start, this->length);
    yGm.SetGlobalBuffer((__gm__ float*)y + start, this->length);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
    pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < length; off += tileLength) {
      uint32_t n = length - off < tileLength ? length - off : tileLength;
      CopyIn(off, n);
      Compute(n);
      CopyOut(off, n);
    }
  }

 private:
  // The tail is copied rounded up to 32 bytes: the allocation is padded, and what lies past
  // the tensor is never stored back.
  __aicore__ inline uint32_t Round8(uint32_t n) { return (n + 7) / 8 * 8; }
  __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
    LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    DataCopy(xLocal, xGm[off], Round8(n));
    inQueueX.EnQue(xLocal);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
    Relu(yLocal, xLocal, static_cast<int32_t>(Round8(n)));
    outQueueY.EnQue<float>(yLocal);
    inQueueX.FreeTensor(xLocal);
  }
  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<float> yLocal = outQueueY.DeQue<float>();
    if (n % 8 == 0) {
      DataCopy(yGm[off], yLocal, n);
    } else {
      DataCopyPad(yGm[off], yLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
    }
    outQueueY.FreeTensor(yLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
  GlobalTensor<float> xGm, yGm;
  uint32_t length = 0, tileLength = 0;
};

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelRelu op;
  op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
  op.Process();
}

// ---- op_host/relu_custom.cpp ----
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  ReluCustomTilingData tiling;
  auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ubSize = 0;
  ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
  uint32_t coreNum = ascendcPlatform.GetCoreNum();
  uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
  uint32_t blockLength = ((totalLength + coreNum - 1) / coreNum + 7) / 8 * 8;
  uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;
  // Two queues of two buffers each fill at most half of UB.
  uint32_t tileMax = static_cast<uint32_t>(ubSize / 2 / (2 * 2 * sizeof(float))) / 8 * 8;
  tiling.set_totalLength(totalLength);
  tiling.set_blockLength(blockLength);
  tiling.set_tileLength(blockLength < tileMax ? blockLength : tileMax);
  context->SetBlockDim(blockDim);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t* currentWorkspace = context->GetWorkspaceSizes(1);
  currentWorkspace[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
  const gert::Shape* xShape = context->GetInputShape(0);
  gert::Shape* yShape = context->GetOutputShape(0);
  *yShape = *xShape;
  return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ReluCustom : public OpDef {
 public:
  explicit ReluCustom(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape);
    this->AICore().SetTiling(optiling::TilingFunc);
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(ReluCustom);
}  // namespace ops

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::TilingFunc, relu_custom, in, n_in, out, n_out);
}
