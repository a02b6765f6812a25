// task: builtin:level1/rms_norm
// expect: feasible
// RMSNorm with a weight input, CANN style: the kernel takes (x, weight, y, workspace, tiling),
// the tiling function reads the hidden size from the last dimension and eps is a tiling
// field; the weight is loaded once per block into a TBuf and each row is normalised with
// Mul/ReduceSum and a scalar rsqrt.
#include <math.h>

#include "kernel_operator.h"
#include "register/op_def_registry.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RmsNormTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
TILING_DATA_FIELD_DEF(float, eps);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RmsNormCustom, RmsNormTilingData)
}  // namespace optiling

using namespace AscendC;

class KernelRmsNorm {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR w, GM_ADDR y,
                              const optiling::RmsNormTilingData& t) {
    cols_ = t.cols;
    ca_ = t.colsAligned;
    eps_ = t.eps;
    uint32_t first = t.rowsPerBlock * GetBlockIdx();
    rows_ = t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock;
    xGm_.SetGlobalBuffer((__gm__ float*)x + (uint64_t)first * cols_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + (uint64_t)first * cols_);
    wGm_.SetGlobalBuffer((__gm__ float*)w, cols_);
    pipe_.InitBuffer(inQ_, 2, ca_ * sizeof(float));
    pipe_.InitBuffer(outQ_, 2, ca_ * sizeof(float));
    pipe_.InitBuffer(wBuf_, ca_ * sizeof(float));
    pipe_.InitBuffer(sqBuf_, ca_ * sizeof(float));
    pipe_.InitBuffer(stat_, 8 * sizeof(float));
    pipe_.InitBuffer(work_, 64 * sizeof(float));
  }
  __aicore__ inline void Process() {
    LocalTensor<float> w = wBuf_.Get<float>();
    DataCopyPad(w, wGm_, DataCopyExtParams(1, cols_ * sizeof(float), 0, 0, 0),
                DataCopyPadExtParams<float>(true, 0, static_cast<uint8_t>(ca_ - cols_), 0.0f));
    for (uint32_t r = 0; r < rows_; ++r) {
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      DataCopyPad(x, xGm_[(uint64_t)r * cols_], DataCopyExtParams(1, cols_ * sizeof(float), 0, 0, 0),
                  DataCopyPadExtParams<float>(true, 0, static_cast<uint8_t>(ca_ - cols_), 0.0f));
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> sq = sqBuf_.Get<float>(), stat = stat_.Get<float>();
      Mul(sq, x, x, static_cast<int32_t>(ca_));
      ReduceSum(stat, sq, work_.Get<float>(), static_cast<int32_t>(ca_));
      float scale = 1.0f / sqrtf(stat.GetValue(0) / static_cast<float>(cols_) + eps_);
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      Muls(y, x, scale, static_cast<int32_t>(ca_));
      Mul(y, y, w, static_cast<int32_t>(ca_));
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<float>();
      DataCopyPad(yGm_[(uint64_t)r * cols_], y, DataCopyExtParams(1, cols_ * sizeof(float), 0, 0, 0));
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inQ_;
  TQue<TPosition::VECOUT, 2> outQ_;
  TBuf<TPosition::VECCALC> wBuf_, sqBuf_, stat_, work_;
  GlobalTensor<float> xGm_, wGm_, yGm_;
  uint32_t rows_ = 0, cols_ = 0, ca_ = 0;
  float eps_ = 0;
};

extern "C" __global__ __aicore__ void rms_norm_custom(GM_ADDR x, GM_ADDR weight, GM_ADDR y,
                                                      GM_ADDR workspace, GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(t, tiling);
  KernelRmsNorm op;
  op.Init(x, weight, y, t);
  op.Process();
}

namespace optiling {
static ge::graphStatus RmsNormTiling(gert::TilingContext* context) {
  const gert::Shape& s = context->GetInputShape(0)->GetStorageShape();
  uint32_t cols = static_cast<uint32_t>(s.GetDim(s.GetDimNum() - 1));
  uint32_t rows = static_cast<uint32_t>(s.GetShapeSize() / cols);
  uint32_t cores = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNum();
  RmsNormTilingData t;
  t.set_rows(rows);
  t.set_cols(cols);
  t.set_colsAligned((cols + 7) / 8 * 8);
  t.set_rowsPerBlock((rows + cores - 1) / cores);
  t.set_eps(1e-6f);
  if (t.colsAligned * sizeof(float) * 6 > 192 * 1024 || t.colsAligned > 64 * 64)
    return ge::GRAPH_FAILED;
  context->SetBlockDim((rows + t.rowsPerBlock - 1) / t.rowsPerBlock);
  t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(t.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::RmsNormTiling, rms_norm_custom, in, n_in, out, n_out);
}
