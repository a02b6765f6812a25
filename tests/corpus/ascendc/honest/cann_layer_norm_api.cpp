// task: builtin:level1/layer_norm
// expect: feasible
// LayerNorm through the LayerNorm high-level API: three inputs (x, gamma, beta: the module's
// weight and bias), the LayerNormTiling nested in the tiling data and filled on the host by
// GetLayerNormNDTilingInfo for one tile of rows, the sharedTmpBuffer sized by
// GetLayerNormMaxMinTmpSize, gamma and beta loaded once per block; rows of any length copied
// with DataCopyPad into 32-byte-aligned rows (the tiling's hLength) of which originalHLength
// are data.
#include "kernel_operator.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerNormApiTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
TILING_DATA_FIELD_DEF(float, eps);
TILING_DATA_FIELD_DEF_STRUCT(LayerNormTiling, layerNormTiling);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayerNormApi, LayerNormApiTilingData)
}  // namespace optiling

using namespace AscendC;

template <typename T>
class KernelLayerNormApi {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                              const optiling::LayerNormApiTilingData& t) {
    t_ = t;
    uint32_t first = t.rowsPerBlock * GetBlockIdx();
    rows_ = first >= t.rows ? 0 : (t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock);
    xGm_.SetGlobalBuffer((__gm__ T*)x + (uint64_t)first * t.cols);
    yGm_.SetGlobalBuffer((__gm__ T*)y + (uint64_t)first * t.cols);
    gGm_.SetGlobalBuffer((__gm__ T*)gamma, t.cols);
    bGm_.SetGlobalBuffer((__gm__ T*)beta, t.cols);
    pipe_.InitBuffer(inQ_, 2, t.rowsPerTile * t.colsAligned * sizeof(T));
    pipe_.InitBuffer(outQ_, 2, t.rowsPerTile * t.colsAligned * sizeof(T));
    pipe_.InitBuffer(params_, 2 * t.colsAligned * sizeof(T));
    pipe_.InitBuffer(stats_, 2 * ((t.rowsPerTile + 7) / 8 * 8) * sizeof(T));
    pipe_.InitBuffer(tmp_, t.tmpBytes);
  }
  __aicore__ inline void Process() {
    LocalTensor<T> gamma = params_.Get<T>(), beta = gamma[t_.colsAligned];
    DataCopyExtParams row(1, t_.cols * sizeof(T), 0, 0, 0);
    DataCopyPad(gamma, gGm_, row, DataCopyPadExtParams<T>());
    DataCopyPad(beta, bGm_, row, DataCopyPadExtParams<T>());
    LocalTensor<T> mean = stats_.Get<T>(), var = mean[(t_.rowsPerTile + 7) / 8 * 8];
    LocalTensor<uint8_t> tmp = tmp_.Get<uint8_t>();
    for (uint32_t r = 0; r < rows_; r += t_.rowsPerTile) {
      uint32_t n = rows_ - r < t_.rowsPerTile ? rows_ - r : t_.rowsPerTile;
      LocalTensor<T> x = inQ_.AllocTensor<T>();
      DataCopyPad(x, xGm_[(uint64_t)r * t_.cols], DataCopyExtParams(n, t_.cols * sizeof(T), 0, 0, 0),
                  DataCopyPadExtParams<T>());
      inQ_.EnQue(x);
      x = inQ_.DeQue<T>();
      LocalTensor<T> y = outQ_.AllocTensor<T>();
      LayerNormTiling tiling = t_.layerNormTiling;
      tiling.sLength = n;  // a tail tile has fewer rows
      LayerNorm<T>(y, mean, var, x, gamma, beta, tmp, static_cast<T>(t_.eps), tiling);
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<T>();
      DataCopyPad(yGm_[(uint64_t)r * t_.cols], y, DataCopyExtParams(n, t_.cols * sizeof(T), 0, 0, 0));
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inQ_;
  TQue<TPosition::VECOUT, 2> outQ_;
  TBuf<TPosition::VECCALC> params_, stats_, tmp_;
  GlobalTensor<T> xGm_, yGm_, gGm_, bGm_;
  optiling::LayerNormApiTilingData t_;
  uint32_t rows_ = 0;
};

extern "C" __global__ __aicore__ void layer_norm_api(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta,
                                                     GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(t, tiling);
  KernelLayerNormApi<float> op;
  op.Init(x, gamma, beta, y, t);
  op.Process();
}

namespace optiling {
static ge::graphStatus LayerNormApiTiling(gert::TilingContext* context) {
  const gert::Shape& s = context->GetInputShape(0)->GetStorageShape();
  uint32_t cols = static_cast<uint32_t>(s.GetDim(s.GetDimNum() - 1));
  uint32_t rows = static_cast<uint32_t>(s.GetShapeSize() / cols);
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ub = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  uint32_t cores = platform.GetCoreNum();
  LayerNormApiTilingData t;
  t.set_rows(rows);
  t.set_cols(cols);
  t.set_colsAligned((cols + 7) / 8 * 8);
  t.set_eps(1e-5f);
  t.set_rowsPerBlock((rows + cores - 1) / cores);
  uint32_t fit = static_cast<uint32_t>(ub / 2 / (4 * t.colsAligned * sizeof(float)));
  t.set_rowsPerTile(fit < t.rowsPerBlock ? fit : t.rowsPerBlock);
  if (t.rowsPerTile == 0) return ge::GRAPH_FAILED;
  ge::Shape tile({1, static_cast<int64_t>(t.rowsPerTile), static_cast<int64_t>(t.colsAligned)});
  uint32_t maxTmp = 0, minTmp = 0;
  AscendC::GetLayerNormMaxMinTmpSize(tile, sizeof(float), false, maxTmp, minTmp);
  t.set_tmpBytes(minTmp);
  AscendC::GetLayerNormNDTilingInfo(tile, minTmp, sizeof(float), false, t.layerNormTiling);
  t.layerNormTiling.originalHLength = cols;
  context->SetBlockDim((rows + t.rowsPerBlock - 1) / t.rowsPerBlock);
  t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(t.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::LayerNormApiTiling, layer_norm_api, in, n_in, out, n_out);
}
