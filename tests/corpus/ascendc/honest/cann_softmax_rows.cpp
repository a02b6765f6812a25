// task: builtin:level1/softmax
// expect: feasible
// Row softmax in the CANN style: tiling data with rows per block and rows per tile, a class
// with Init/Process, rows brought in with DataCopyPad (each row padded to 32 bytes with -inf,
// so the max and the sum ignore the padding), ReduceMax/ReduceSum with a TBuf work tensor,
// and the row statistics read through LocalTensor::operator().
#include <math.h>

#include "kernel_operator.h"
#include "register/op_def_registry.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SoftmaxCustom, SoftmaxTilingData)
}  // namespace optiling

using namespace AscendC;

class KernelSoftmax {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const optiling::SoftmaxTilingData& t) {
    cols_ = t.cols;
    ca_ = t.colsAligned;
    tileRows_ = t.rowsPerTile;
    uint32_t first = t.rowsPerBlock * GetBlockIdx();
    rows_ = t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock;
    xGm_.SetGlobalBuffer((__gm__ float*)x + (uint64_t)first * cols_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + (uint64_t)first * cols_);
    pipe_.InitBuffer(inQ_, 2, tileRows_ * ca_ * sizeof(float));
    pipe_.InitBuffer(outQ_, 2, tileRows_ * ca_ * sizeof(float));
    pipe_.InitBuffer(stat_, 8 * sizeof(float));
    pipe_.InitBuffer(work_, 64 * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t r = 0; r < rows_; r += tileRows_) {
      uint32_t n = rows_ - r < tileRows_ ? rows_ - r : tileRows_;
      CopyIn(r, n);
      Compute(n);
      CopyOut(r, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t r, uint32_t n) {
    LocalTensor<float> x = inQ_.AllocTensor<float>();
    DataCopyPad(x, xGm_[(uint64_t)r * cols_], DataCopyExtParams(n, cols_ * sizeof(float), 0, 0, 0),
                DataCopyPadExtParams<float>(true, 0, static_cast<uint8_t>(ca_ - cols_), -INFINITY));
    inQ_.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> x = inQ_.DeQue<float>();
    LocalTensor<float> y = outQ_.AllocTensor<float>();
    LocalTensor<float> stat = stat_.Get<float>();
    LocalTensor<float> work = work_.Get<float>();
    for (uint32_t i = 0; i < n; ++i) {
      LocalTensor<float> xi = x[i * ca_], yi = y[i * ca_];
      ReduceMax(stat, xi, work, static_cast<int32_t>(ca_));
      float rowMax = stat(0);
      Adds(yi, xi, -rowMax, static_cast<int32_t>(ca_));
      Exp(yi, yi, static_cast<int32_t>(ca_));
      ReduceSum(stat, yi, work, static_cast<int32_t>(ca_));
      float sum = stat(0);
      Muls(yi, yi, 1.0f / sum, static_cast<int32_t>(ca_));
    }
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t r, uint32_t n) {
    LocalTensor<float> y = outQ_.DeQue<float>();
    DataCopyPad(yGm_[(uint64_t)r * cols_], y, DataCopyExtParams(n, cols_ * sizeof(float), 0, 0, 0));
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inQ_;
  TQue<TPosition::VECOUT, 2> outQ_;
  TBuf<TPosition::VECCALC> stat_, work_;
  GlobalTensor<float> xGm_, yGm_;
  uint32_t rows_ = 0, cols_ = 0, ca_ = 0, tileRows_ = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                     GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(t, tiling);
  KernelSoftmax op;
  op.Init(x, y, t);
  op.Process();
}

namespace optiling {
static ge::graphStatus SoftmaxTiling(gert::TilingContext* context) {
  const gert::Shape& s = context->GetInputShape(0)->GetStorageShape();
  uint32_t cols = static_cast<uint32_t>(s.GetDim(s.GetDimNum() - 1));
  uint32_t rows = static_cast<uint32_t>(s.GetShapeSize() / cols);
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ub = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  uint32_t cores = platform.GetCoreNum();
  SoftmaxTilingData t;
  t.set_rows(rows);
  t.set_cols(cols);
  t.set_colsAligned((cols + 7) / 8 * 8);
  t.set_rowsPerBlock((rows + cores - 1) / cores);
  // Four row buffers (two queues, double-buffered) in at most 3/4 of UB.
  uint32_t fit = static_cast<uint32_t>(ub * 3 / 4 / (4 * t.colsAligned * sizeof(float)));
  uint32_t perTile = fit < 64 ? fit : 64;
  t.set_rowsPerTile(perTile < t.rowsPerBlock ? perTile : t.rowsPerBlock);
  if (t.rowsPerTile == 0 || t.colsAligned > 64 * 64) return ge::GRAPH_FAILED;
  context->SetBlockDim((rows + t.rowsPerBlock - 1) / t.rowsPerBlock);
  t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(t.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::SoftmaxTiling, softmax_custom, in, n_in, out, n_out);
}
