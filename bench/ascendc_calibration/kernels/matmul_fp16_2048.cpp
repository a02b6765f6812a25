// calibration: matmul_fp16_2048
// published_us: 52.4
// published: torch.mm reaches 328 TFLOPS on a 910B (bf16; the cube's fp16 and bf16 rates are the same, the best of 1000 shapes from 1024 to 20480): 2 * 2048^3 FLOP at that rate
// source: https://github.com/gameofdimension/limulidae (README "算力"; bench_flops.py)
// chip: Ascend 910B, CANN 8.0.0.beta1, torch_npu 2.4.0.post2
// measure: device (torch.npu events around torch.mm, the fastest of 100)
// A peak, not this shape's time: the row compares the model's cube throughput at 2048^3
// (the largest cube the emulator multiplies in seconds) with the best the chip reached.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"
using namespace AscendC;

using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using BType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                    TCubeTiling tiling) {
  TPipe pipe;
  GlobalTensor<half> aGm, bGm;
  GlobalTensor<float> cGm;
  aGm.SetGlobalBuffer((__gm__ half*)a, (uint64_t)tiling.M * tiling.Ka);
  bGm.SetGlobalBuffer((__gm__ half*)b, (uint64_t)tiling.Kb * tiling.N);
  cGm.SetGlobalBuffer((__gm__ float*)c, (uint64_t)tiling.M * tiling.N);
  int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
  int32_t m0 = (GetBlockIdx() % mBlocks) * tiling.singleCoreM;
  int32_t n0 = (GetBlockIdx() / mBlocks) * tiling.singleCoreN;
  if (m0 >= tiling.M || n0 >= tiling.N) return;
  int32_t tailM = tiling.M - m0 < tiling.singleCoreM ? tiling.M - m0 : tiling.singleCoreM;
  int32_t tailN = tiling.N - n0 < tiling.singleCoreN ? tiling.N - n0 : tiling.singleCoreN;
  Matmul<AType, BType, CType> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
  mm.SetTensorA(aGm[(uint64_t)m0 * tiling.Ka]);
  mm.SetTensorB(bGm[n0]);
  mm.SetTail(tailM, tailN);
  mm.IterateAll(cGm[(uint64_t)m0 * tiling.N + n0]);
  mm.End();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  int32_t M = (int32_t)in[0].shape[0], K = (int32_t)in[0].shape[1], N = (int32_t)in[1].shape[1];
  matmul_tiling::MultiCoreMatmulTiling tiler;
  tiler.SetDim(24);
  tiler.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT16);
  tiler.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT16);
  tiler.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT);
  tiler.SetShape(M, N, K);
  tiler.SetOrgShape(M, N, K);
  tiler.SetBias(false);
  TCubeTiling tiling;
  if (tiler.GetTiling(tiling) == -1) return 1;
  ACLRT_LAUNCH_KERNEL(matmul_custom)(tiling.usedCoreNum, nullptr, (GM_ADDR)in[0].data,
                                     (GM_ADDR)in[1].data, (GM_ADDR)out[0].data, tiling);
  return 0;
}
