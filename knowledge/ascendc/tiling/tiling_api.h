/* Host-side Matmul tiling (matmul_tiling::MultiCoreMatmulTiling, as in the public API): from
 * the shapes, the core count and the layouts it computes the TCubeTiling a kernel's Matmul
 * object is initialised with. The split: the cores form an mBlocks x nBlocks grid over C
 * (singleCoreM x singleCoreN each, multiples of 16), and every core walks its block in
 * baseM x baseN x baseK tiles sized to L0A/L0B/L0C. SetFixSplit overrides the base tile. */
#ifndef EVOKERNEL_TILING_TILING_API_H_
#define EVOKERNEL_TILING_TILING_API_H_
#include "evokernel/cube_tiling.h"
#include "kernel_operator.h"

namespace matmul_tiling {

using TPosition = AscendC::TPosition;
enum class CubeFormat : int32_t { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class DataType : int32_t { DT_FLOAT, DT_FLOAT16, DT_INT32 };

class MultiCoreMatmulTiling {
 public:
  MultiCoreMatmulTiling() {}
  int32_t SetDim(int32_t dim) { dim_ = dim; return 0; }
  int32_t SetAType(TPosition, CubeFormat, DataType t, bool isTrans = false) {
    inBytes_ = t == DataType::DT_FLOAT16 ? 2 : 4;
    transA_ = isTrans;
    return 0;
  }
  int32_t SetBType(TPosition, CubeFormat, DataType, bool isTrans = false) { transB_ = isTrans; return 0; }
  int32_t SetCType(TPosition, CubeFormat, DataType) { return 0; }
  int32_t SetBiasType(TPosition, CubeFormat, DataType) { return 0; }
  int32_t SetShape(int32_t m, int32_t n, int32_t k) { m_ = m; n_ = n; k_ = k; return 0; }
  int32_t SetOrgShape(int32_t m, int32_t n, int32_t k) { M_ = m; N_ = n; Ka_ = k; Kb_ = k; return 0; }
  int32_t SetOrgShape(int32_t m, int32_t n, int32_t ka, int32_t kb) { M_ = m; N_ = n; Ka_ = ka; Kb_ = kb; return 0; }
  int32_t SetBias(bool bias = false) { bias_ = bias; return 0; }
  int32_t SetBufferSpace(int32_t = -1, int32_t = -1, int32_t = -1) { return 0; }
  int32_t SetFixSplit(int32_t baseM = -1, int32_t baseN = -1, int32_t baseK = -1) {
    fixM_ = baseM; fixN_ = baseN; fixK_ = baseK;
    return 0;
  }
  // 0 on success, -1 when the shapes or the core count are invalid.
  int64_t GetTiling(TCubeTiling& t) {
    if (m_ <= 0 || n_ <= 0 || k_ <= 0 || dim_ <= 0) return -1;
    if (M_ == 0) { M_ = m_; N_ = n_; Ka_ = k_; Kb_ = k_; }
    int32_t bestM = 1, bestN = 1;
    int64_t best = -1;
    for (int32_t mb = 1; mb <= dim_; ++mb)
      for (int32_t nb = 1; mb * nb <= dim_; ++nb) {
        int64_t sm = Round16(Ceil(m_, mb)), sn = Round16(Ceil(n_, nb));
        int64_t work = sm * sn + (sm + sn) * 16;  // compute plus operand loads, per core
        if (best < 0 || work < best) { best = work; bestM = mb; bestN = nb; }
      }
    t.M = M_; t.N = N_; t.Ka = Ka_; t.Kb = Kb_;
    t.singleCoreM = Round16(Ceil(m_, bestM));
    t.singleCoreN = Round16(Ceil(n_, bestN));
    t.singleCoreK = k_;
    t.usedCoreNum = Ceil(m_, t.singleCoreM) * Ceil(n_, t.singleCoreN);
    t.baseM = fixM_ > 0 ? fixM_ : Min(128, t.singleCoreM);
    t.baseN = fixN_ > 0 ? fixN_ : Min(256, t.singleCoreN);
    int32_t k0 = (32 * 1024) / (Max(t.baseM, t.baseN) * inBytes_);  // half of L0A/L0B: ping-pong
    t.baseK = fixK_ > 0 ? fixK_ : Max(16, Min(Round16(k_), (k0 / 16) * 16));
    t.isBias = bias_ ? 1 : 0;
    t.transA = transA_ ? 1 : 0;
    t.transB = transB_ ? 1 : 0;
    return 0;
  }

 private:
  static int32_t Ceil(int64_t a, int64_t b) { return static_cast<int32_t>((a + b - 1) / b); }
  static int32_t Round16(int64_t a) { return static_cast<int32_t>((a + 15) / 16 * 16); }
  static int32_t Min(int32_t a, int32_t b) { return a < b ? a : b; }
  static int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }
  int32_t dim_ = 1, m_ = 0, n_ = 0, k_ = 0, M_ = 0, N_ = 0, Ka_ = 0, Kb_ = 0, inBytes_ = 4;
  int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1;
  bool bias_ = false, transA_ = false, transB_ = false;
};

}  // namespace matmul_tiling

#endif /* EVOKERNEL_TILING_TILING_API_H_ */
