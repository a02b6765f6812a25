// task: builtin:level1/matmul_square
// expect: feasible
// The CANN matmul operator: TCubeTiling nested in the tiling data
// (TILING_DATA_FIELD_DEF_STRUCT), filled on the host by MultiCoreMatmulTiling over the AIC
// count, the system workspace requested through GetWorkspaceSizes and set in the kernel with
// SetSysWorkspace, and the Matmul object registered with REGIST_MATMUL_OBJ.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulCustomTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MatmulCustom, MatmulCustomTilingData)
}  // namespace optiling

using namespace AscendC;
using namespace matmul;

using AType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using BType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                    GM_ADDR workspace, GM_ADDR tiling) {
  SetSysWorkspace(workspace);
  GET_TILING_DATA(tilingData, tiling);
  const TCubeTiling& t = tilingData.cubeTilingData;
  int32_t mBlocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
  int32_t mIdx = GetBlockIdx() % mBlocks, nIdx = GetBlockIdx() / mBlocks;
  int32_t m0 = mIdx * t.singleCoreM, n0 = nIdx * t.singleCoreN;
  if (m0 >= t.M || n0 >= t.N) return;
  GlobalTensor<float> aGm, bGm, cGm;
  aGm.SetGlobalBuffer((__gm__ float*)a, (uint64_t)t.M * t.Ka);
  bGm.SetGlobalBuffer((__gm__ float*)b, (uint64_t)t.Kb * t.N);
  cGm.SetGlobalBuffer((__gm__ float*)c, (uint64_t)t.M * t.N);
  TPipe pipe;
  Matmul<AType, BType, CType> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tilingData.cubeTilingData);
  mm.SetTensorA(aGm[(uint64_t)m0 * t.Ka]);
  mm.SetTensorB(bGm[n0]);
  mm.SetTail(t.M - m0 < t.singleCoreM ? t.M - m0 : t.singleCoreM,
             t.N - n0 < t.singleCoreN ? t.N - n0 : t.singleCoreN);
  mm.IterateAll(cGm[(uint64_t)m0 * t.N + n0]);
  mm.End();
}

namespace optiling {
static ge::graphStatus MatmulTiling(gert::TilingContext* context) {
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  const gert::Shape& a = context->GetInputShape(0)->GetStorageShape();
  const gert::Shape& b = context->GetInputShape(1)->GetStorageShape();
  int32_t M = static_cast<int32_t>(a.GetDim(0)), K = static_cast<int32_t>(a.GetDim(1));
  int32_t N = static_cast<int32_t>(b.GetDim(1));
  matmul_tiling::MultiCoreMatmulTiling tiler;
  tiler.SetDim(platform.GetCoreNumAic());
  tiler.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT);
  tiler.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT);
  tiler.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT);
  tiler.SetShape(M, N, K);
  tiler.SetOrgShape(M, N, K);
  tiler.SetBias(false);
  MatmulCustomTilingData tiling;
  if (tiler.GetTiling(tiling.cubeTilingData) == -1) return ge::GRAPH_FAILED;
  context->SetBlockDim(tiling.cubeTilingData.usedCoreNum);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t* workspace = context->GetWorkspaceSizes(1);
  workspace[0] = platform.GetLibApiWorkSpaceSize();
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  return EVK_RUN_CANN_OP(optiling::MatmulTiling, matmul_custom, in, n_in, out, n_out);
}
