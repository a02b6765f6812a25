// The library's matmul: the high-level Matmul API, tiled on the host by
// MultiCoreMatmulTiling over the 24 cube cores; a batch runs as one launch whose blocks cover
// every batch's grid of C tiles. Serves matmul, mm, bmm and linear (weight transposed, bias).
#include "eager/library.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"

using namespace AscendC;
using namespace matmul;

namespace evk::runner::ascendc::eager {
namespace {

struct MmTiling {
  TCubeTiling cube;
  uint32_t batch;
  uint64_t a_stride, b_stride, c_stride;  // elements between batches (b: 0 when shared)
};

using AType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using BType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

extern "C" __global__ __aicore__ void eager_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                   MmTiling t) {
  const TCubeTiling& ct = t.cube;
  int32_t per_batch = ct.usedCoreNum;
  int32_t batch = static_cast<int32_t>(GetBlockIdx()) / per_batch;
  int32_t tile = static_cast<int32_t>(GetBlockIdx()) % per_batch;
  int32_t mBlocks = (ct.M + ct.singleCoreM - 1) / ct.singleCoreM;
  int32_t m0 = (tile % mBlocks) * ct.singleCoreM, n0 = (tile / mBlocks) * ct.singleCoreN;
  if (m0 >= ct.M || n0 >= ct.N) return;
  GlobalTensor<float> ag, bg, cg, biasg;
  ag.SetGlobalBuffer((__gm__ float*)a + batch * t.a_stride);
  bg.SetGlobalBuffer((__gm__ float*)b + batch * t.b_stride);
  cg.SetGlobalBuffer((__gm__ float*)c + batch * t.c_stride);
  TPipe pipe;
  Matmul<AType, BType, CType> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &ct);
  mm.SetTensorA(ag[ct.transA ? m0 : static_cast<uint64_t>(m0) * ct.Ka], ct.transA != 0);
  mm.SetTensorB(bg[ct.transB ? static_cast<uint64_t>(n0) * ct.Kb : n0], ct.transB != 0);
  if (ct.isBias) {
    biasg.SetGlobalBuffer((__gm__ float*)bias);
    mm.SetBias(biasg[n0]);
  }
  mm.SetTail(ct.M - m0 < ct.singleCoreM ? ct.M - m0 : ct.singleCoreM,
             ct.N - n0 < ct.singleCoreN ? ct.N - n0 : ct.singleCoreN);
  mm.IterateAll(cg[static_cast<uint64_t>(m0) * ct.N + n0]);
  mm.End();
}

}  // namespace

std::optional<Plan> plan_matmul(const LibOp& op, std::string* why) {
  bool linear = op.op == "linear";
  if (!(linear || op.op == "matmul" || op.op == "mm" || op.op == "bmm" || op.op == "__matmul__") ||
      op.in.size() < 2 || op.in[0].empty() || op.in[1].empty()) {
    *why = "no matmul kernel for " + op.op;
    return std::nullopt;
  }
  const auto &a = op.in[0], &b = op.in[1];
  int64_t k = a.back(), m = numel(a) / k, n = 0, batch = 1;
  bool trans_b = linear, bias = linear && op.in.size() >= 3;
  if (linear) {
    n = b[0];
  } else if (b.size() == 1) {  // matrix-vector
    n = 1;
  } else if (b.size() == 2) {  // a's leading dimensions fold into M
    n = b[1];
  } else {  // batched: equal leading dimensions
    if (a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin())) {
      *why = "a broadcast batch";
      return std::nullopt;
    }
    n = b.back();
    m = a[a.size() - 2];
    batch = numel(a) / (m * k);
  }
  if (k != (linear || b.size() == 1 ? b.back() : b[b.size() - 2])) {
    *why = "mismatched inner dimensions";
    return std::nullopt;
  }
  matmul_tiling::MultiCoreMatmulTiling tiler;
  tiler.SetDim(24);
  tiler.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT);
  tiler.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT, trans_b);
  tiler.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT);
  tiler.SetShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
  tiler.SetOrgShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
  tiler.SetBias(bias);
  MmTiling t{};
  if (tiler.GetTiling(t.cube) != 0) {
    *why = "the Matmul tiling refused the shape";
    return std::nullopt;
  }
  t.batch = static_cast<uint32_t>(batch);
  t.a_stride = static_cast<uint64_t>(m * k);
  t.b_stride = batch > 1 ? static_cast<uint64_t>(k * n) : 0;
  t.c_stride = static_cast<uint64_t>(m * n);
  uint32_t blocks = static_cast<uint32_t>(batch * t.cube.usedCoreNum);
  return Plan{
      "eager_matmul(" + op.op + ")",
      [t, blocks, bias](const std::vector<uint64_t>& in, uint64_t out) {
        ACLRT_LAUNCH_KERNEL(eager_matmul)
        (blocks, nullptr, reinterpret_cast<GM_ADDR>(in[0]), reinterpret_cast<GM_ADDR>(in[1]),
         bias ? reinterpret_cast<GM_ADDR>(in[2]) : nullptr, reinterpret_cast<GM_ADDR>(out), t);
      }};
}

}  // namespace evk::runner::ascendc::eager
