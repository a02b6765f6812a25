/* The high-level Matmul API (kernel side) on the emulated cube unit: C = A * B (+ bias) for
 * one core's sub-matrix, A and B in global memory in ND (row-major) layout, C written to
 * global memory. The emulator runs it as the real API does: base tiles loaded to L1/L0 by
 * MTE2, multiplied on the cube (16x16x16 fractals), written out through the fixpipe; it is
 * charged to those pipes. float or half A/B, float C and bias. */
#ifndef EVOKERNEL_LIB_MATMUL_INTF_H_
#define EVOKERNEL_LIB_MATMUL_INTF_H_
#include "evokernel/cube_tiling.h"
#include "kernel_operator.h"

namespace matmul {

enum class CubeFormat : int32_t { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

template <AscendC::TPosition POS, CubeFormat FORMAT, class T, bool ISTRANS = false>
struct MatmulType {
  using DType = T;
  static constexpr AscendC::TPosition pos = POS;
  static constexpr CubeFormat format = FORMAT;
  static constexpr bool isTrans = ISTRANS;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE>
class Matmul {
  using A = typename A_TYPE::DType;
  using B = typename B_TYPE::DType;
  using C = typename C_TYPE::DType;
  using Bias = typename BIAS_TYPE::DType;

 public:
  __aicore__ inline void Init(const TCubeTiling* tiling, AscendC::TPipe* = nullptr) {
    t_ = *tiling;
    m_ = t_.singleCoreM;
    n_ = t_.singleCoreN;
    k_ = t_.singleCoreK;
  }
  __aicore__ inline void SetTensorA(const AscendC::GlobalTensor<A>& a, bool isTransposeA = false) {
    a_ = a.t_;
    transA_ = isTransposeA || A_TYPE::isTrans;
  }
  __aicore__ inline void SetTensorB(const AscendC::GlobalTensor<B>& b, bool isTransposeB = false) {
    b_ = b.t_;
    transB_ = isTransposeB || B_TYPE::isTrans;
  }
  __aicore__ inline void SetBias(const AscendC::GlobalTensor<Bias>& bias) {
    bias_ = bias.t_;
    hasBias_ = true;
  }
  __aicore__ inline void SetTail(int32_t tailM = -1, int32_t tailN = -1, int32_t tailK = -1) {
    if (tailM > 0) m_ = tailM;
    if (tailN > 0) n_ = tailN;
    if (tailK > 0) k_ = tailK;
  }
  __aicore__ inline void SetSingleShape(int32_t m, int32_t n, int32_t k) { SetTail(m, n, k); }
  template <bool sync = true>
  __aicore__ inline void IterateAll(const AscendC::GlobalTensor<C>& c, uint8_t enAtomic = 0) {
    (void)enAtomic;
    Run(c.t_, 0, 0, m_, n_);
  }
  // Iterate() steps to the next baseM x baseN tile of C (M first, then N: ORDER_M) and returns
  // false after the last; GetTensorC writes that tile: to C's place in the GlobalTensor, or,
  // with enSequentialWrite, to its start as a baseM x baseN row-major block.
  template <bool sync = true>
  __aicore__ inline bool Iterate(bool enPartialSum = false) {
    (void)enPartialSum;
    int32_t mTiles = (m_ + t_.baseM - 1) / t_.baseM, nTiles = (n_ + t_.baseN - 1) / t_.baseN;
    if (t_.baseM <= 0 || t_.baseN <= 0 || ++tile_ >= mTiles * nTiles) {
      tile_ = -1;
      return false;
    }
    row_ = (tile_ % mTiles) * t_.baseM;
    col_ = (tile_ / mTiles) * t_.baseN;
    return true;
  }
  template <bool sync = true>
  __aicore__ inline void GetTensorC(const AscendC::GlobalTensor<C>& c, uint8_t enAtomic = 0,
                                    bool enSequentialWrite = false) {
    (void)enAtomic;
    int32_t tm = m_ - row_ < t_.baseM ? m_ - row_ : t_.baseM;
    int32_t tn = n_ - col_ < t_.baseN ? n_ - col_ : t_.baseN;
    evk_gt at = c.t_;
    if (!enSequentialWrite) at.addr += (static_cast<uint64_t>(row_) * t_.N + col_) * sizeof(C);
    Run(at, row_, col_, tm, tn, enSequentialWrite ? t_.baseN : t_.N);
  }
  // The library keeps its vector-side scratch here in mix mode; the emulated Matmul needs none.
  __aicore__ inline void SetLocalWorkspace(const AscendC::LocalTensor<uint8_t>&) {}
  __aicore__ inline void SetWorkspace(GM_ADDR, int32_t) {}
  __aicore__ inline void End() { hasBias_ = false; tile_ = -1; }

 private:
  // C[row0.., col0..] (tm x tn) = A[row0.., :] * B[:, col0..] (+ bias[col0..]) into c.
  __aicore__ inline void Run(const evk_gt& c, int32_t row0, int32_t col0, int32_t tm, int32_t tn,
                             int32_t ldc = -1) {
    evk_mm mm;
    mm.a = a_;
    mm.b = b_;
    mm.bias = bias_;
    mm.a.addr += static_cast<uint64_t>(row0) * (transA_ ? 1 : t_.Ka) * sizeof(A);
    mm.b.addr += static_cast<uint64_t>(col0) * (transB_ ? t_.Kb : 1) * sizeof(B);
    mm.bias.addr += static_cast<uint64_t>(col0) * sizeof(Bias);
    mm.c = c;
    mm.has_bias = hasBias_ ? 1 : 0;
    mm.trans_a = transA_ ? 1 : 0;
    mm.trans_b = transB_ ? 1 : 0;
    mm.m = tm;
    mm.n = tn;
    mm.k = k_;
    mm.lda = transA_ ? t_.M : t_.Ka;
    mm.ldb = transB_ ? t_.Kb : t_.N;
    mm.ldc = ldc > 0 ? ldc : t_.N;
    mm.base_m = t_.baseM;
    mm.base_n = t_.baseN;
    mm.base_k = t_.baseK;
    evk_acl_matmul(&mm);
  }

  TCubeTiling t_;
  evk_gt a_{0, 0, 0}, b_{0, 0, 0}, bias_{0, 0, 0};
  bool transA_ = false, transB_ = false, hasBias_ = false;
  int32_t m_ = 0, n_ = 0, k_ = 0;
  int32_t tile_ = -1, row_ = 0, col_ = 0;  // Iterate's position
};

}  // namespace matmul

namespace AscendC {
using matmul::CubeFormat;
using matmul::Matmul;
using matmul::MatmulType;
}  // namespace AscendC

// The UB the library reserves for a mix-mode Matmul's vector side (SetLocalWorkspace): none
// is needed by the emulated one.
constexpr uint32_t TOTAL_VEC_LOCAL_SIZE = 0;

#define REGIST_MATMUL_OBJ(pipe, workspace, mm, tiling) \
  do {                                                 \
    (void)(workspace);                                 \
    (mm).Init((tiling), (pipe));                       \
  } while (0)

#endif /* EVOKERNEL_LIB_MATMUL_INTF_H_ */
