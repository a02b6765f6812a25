// task: builtin:level1/softmax
// expect: feasible
// Row softmax through the SoftMax high-level API: the SoftMaxTiling nested in the tiling data
// (TILING_DATA_FIELD_DEF_STRUCT), filled on the host by SoftMaxTilingFunc for one tile of rows;
// rows brought in with DataCopyPad (padded with -inf to 32 bytes) and the data length passed
// in SoftMaxShapeInfo; the row max and sum land in 32-byte blocks per row.
#include <math.h>

#include "kernel_operator.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxApiTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SoftmaxApi, SoftmaxApiTilingData)
}  // namespace optiling

using namespace AscendC;

class KernelSoftmaxApi {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const optiling::SoftmaxApiTilingData& t) {
    t_ = t;
    uint32_t first = t.rowsPerBlock * GetBlockIdx();
    rows_ = first >= t.rows ? 0 : (t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock);
    xGm_.SetGlobalBuffer((__gm__ float*)x + (uint64_t)first * t.cols);
    yGm_.SetGlobalBuffer((__gm__ float*)y + (uint64_t)first * t.cols);
    pipe_.InitBuffer(inQ_, 2, t.rowsPerTile * t.colsAligned * sizeof(float));
    pipe_.InitBuffer(outQ_, 2, t.rowsPerTile * t.colsAligned * sizeof(float));
    pipe_.InitBuffer(maxBuf_, t.rowsPerTile * 8 * sizeof(float));
    pipe_.InitBuffer(sumBuf_, t.rowsPerTile * 8 * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t r = 0; r < rows_; r += t_.rowsPerTile) {
      uint32_t n = rows_ - r < t_.rowsPerTile ? rows_ - r : t_.rowsPerTile;
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      DataCopyPad(x, xGm_[(uint64_t)r * t_.cols],
                  DataCopyExtParams(n, t_.cols * sizeof(float), 0, 0, 0),
                  DataCopyPadExtParams<float>(true, 0, static_cast<uint8_t>(t_.colsAligned - t_.cols),
                                              -INFINITY));
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      LocalTensor<float> mx = maxBuf_.Get<float>(), sum = sumBuf_.Get<float>();
      SoftMaxShapeInfo shape = {n, t_.colsAligned, n, t_.cols};
      SoftMax<float>(y, sum, mx, x, t_.softmaxTilingData, shape);
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<float>();
      DataCopyPad(yGm_[(uint64_t)r * t_.cols], y, DataCopyExtParams(n, t_.cols * sizeof(float), 0, 0, 0));
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inQ_;
  TQue<TPosition::VECOUT, 2> outQ_;
  TBuf<TPosition::VECCALC> maxBuf_, sumBuf_;
  GlobalTensor<float> xGm_, yGm_;
  optiling::SoftmaxApiTilingData t_;
  uint32_t rows_ = 0;
};

extern "C" __global__ __aicore__ void softmax_api(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(t, tiling);
  KernelSoftmaxApi op;
  op.Init(x, y, t);
  op.Process();
}

namespace optiling {
static ge::graphStatus SoftmaxApiTiling(gert::TilingContext* context) {
  const gert::Shape& s = context->GetInputShape(0)->GetStorageShape();
  uint32_t cols = static_cast<uint32_t>(s.GetDim(s.GetDimNum() - 1));
  uint32_t rows = static_cast<uint32_t>(s.GetShapeSize() / cols);
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ub = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  uint32_t cores = platform.GetCoreNum();
  SoftmaxApiTilingData t;
  t.set_rows(rows);
  t.set_cols(cols);
  t.set_colsAligned((cols + 7) / 8 * 8);
  t.set_rowsPerBlock((rows + cores - 1) / cores);
  uint32_t fit = static_cast<uint32_t>(ub / 2 / (4 * t.colsAligned * sizeof(float)));
  t.set_rowsPerTile(fit < t.rowsPerBlock ? fit : t.rowsPerBlock);
  if (t.rowsPerTile == 0) return ge::GRAPH_FAILED;
  ge::Shape tile({static_cast<int64_t>(t.rowsPerTile), static_cast<int64_t>(t.colsAligned)});
  AscendC::SoftMaxTilingFunc(tile, sizeof(float), static_cast<uint32_t>(ub / 4),
                             t.softmaxTilingData);
  context->SetBlockDim((rows + t.rowsPerBlock - 1) / t.rowsPerBlock);
  t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(t.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::SoftmaxApiTiling, softmax_api, in, n_in, out, n_out);
}
