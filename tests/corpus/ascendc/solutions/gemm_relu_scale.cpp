// task: builtin:level2/gemm_relu_scale
// expect: feasible
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"
using namespace AscendC;

using AType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using BType = MatmulType<TPosition::GM, CubeFormat::ND, float, true>;  // nn.Linear: W is [N, K]
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

struct EpilogueTiling {
  TCubeTiling mm;
  float scale;
};

// y = relu(x W^T + b) * scale: the cube writes this block's part of y, then the vector unit
// applies the epilogue row by row in the same kernel (one launch, no extra pass over HBM
// from another kernel).
extern "C" __global__ __aicore__ void linear_relu_scale(GM_ADDR x, GM_ADDR w, GM_ADDR bias, GM_ADDR y,
                                                        EpilogueTiling t) {
  const TCubeTiling& tiling = t.mm;
  TPipe pipe;
  GlobalTensor<float> xGm, wGm, bGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, (uint64_t)tiling.M * tiling.Ka);
  wGm.SetGlobalBuffer((__gm__ float*)w, (uint64_t)tiling.N * tiling.Kb);
  bGm.SetGlobalBuffer((__gm__ float*)bias, tiling.N);
  yGm.SetGlobalBuffer((__gm__ float*)y, (uint64_t)tiling.M * tiling.N);
  int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
  int32_t m0 = (GetBlockIdx() % mBlocks) * tiling.singleCoreM;
  int32_t n0 = (GetBlockIdx() / mBlocks) * tiling.singleCoreN;
  if (m0 >= tiling.M || n0 >= tiling.N) return;
  int32_t tm = tiling.M - m0 < tiling.singleCoreM ? tiling.M - m0 : tiling.singleCoreM;
  int32_t tn = tiling.N - n0 < tiling.singleCoreN ? tiling.N - n0 : tiling.singleCoreN;
  Matmul<AType, BType, CType> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
  mm.SetTensorA(xGm[(uint64_t)m0 * tiling.Ka]);
  mm.SetTensorB(wGm[(uint64_t)n0 * tiling.Kb], true);
  mm.SetBias(bGm[n0]);
  mm.SetTail(tm, tn);
  mm.IterateAll(yGm[(uint64_t)m0 * tiling.N + n0]);
  mm.End();

  TQue<TPosition::VECIN, 2> inQ;
  TQue<TPosition::VECOUT, 2> outQ;
  pipe.InitBuffer(inQ, 2, tiling.singleCoreN * sizeof(float));
  pipe.InitBuffer(outQ, 2, tiling.singleCoreN * sizeof(float));
  for (int32_t r = 0; r < tm; ++r) {
    uint64_t row = (uint64_t)(m0 + r) * tiling.N + n0;
    LocalTensor<float> v = inQ.AllocTensor<float>();
    DataCopy(v, yGm[row], tn);
    inQ.EnQue(v);
    v = inQ.DeQue<float>();
    LocalTensor<float> o = outQ.AllocTensor<float>();
    Relu(o, v, tn);
    Muls(o, o, t.scale, tn);
    inQ.FreeTensor(v);
    outQ.EnQue(o);
    o = outQ.DeQue<float>();
    DataCopy(yGm[row], o, tn);
    outQ.FreeTensor(o);
  }
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  // in[0] = x [M, K], in[1] = linear.weight [N, K], in[2] = linear.bias [N]
  int32_t M = (int32_t)in[0].shape[0], K = (int32_t)in[0].shape[1], N = (int32_t)in[1].shape[0];
  if (N % 8 != 0) return 1;  // this kernel copies whole rows of 32-byte blocks
  matmul_tiling::MultiCoreMatmulTiling tiler;
  tiler.SetDim(24);
  tiler.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  tiler.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT, true);
  tiler.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  tiler.SetShape(M, N, K);
  tiler.SetOrgShape(M, N, K);
  tiler.SetBias(true);
  EpilogueTiling t;
  if (tiler.GetTiling(t.mm) == -1) return 1;
  t.scale = 2.0f;  // the task's scale (an init argument)
  ACLRT_LAUNCH_KERNEL(linear_relu_scale)(t.mm.usedCoreNum, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)in[1].data,
                                         (GM_ADDR)in[2].data, (GM_ADDR)out[0].data, t);
  return 0;
}
