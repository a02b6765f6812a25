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
    evk_mm mm;
    mm.a = a_;
    mm.b = b_;
    mm.bias = bias_;
    mm.c = c.t_;
    mm.has_bias = hasBias_ ? 1 : 0;
    mm.trans_a = transA_ ? 1 : 0;
    mm.trans_b = transB_ ? 1 : 0;
    mm.m = m_;
    mm.n = n_;
    mm.k = k_;
    mm.lda = transA_ ? t_.M : t_.Ka;
    mm.ldb = transB_ ? t_.Kb : t_.N;
    mm.ldc = t_.N;
    mm.base_m = t_.baseM;
    mm.base_n = t_.baseN;
    mm.base_k = t_.baseK;
    evk_acl_matmul(&mm);
  }
  __aicore__ inline void End() { hasBias_ = false; }

 private:
  TCubeTiling t_;
  evk_gt a_{0, 0, 0}, b_{0, 0, 0}, bias_{0, 0, 0};
  bool transA_ = false, transB_ = false, hasBias_ = false;
  int32_t m_ = 0, n_ = 0, k_ = 0;
};

}  // namespace matmul

namespace AscendC {
using matmul::CubeFormat;
using matmul::Matmul;
using matmul::MatmulType;
}  // namespace AscendC

#define REGIST_MATMUL_OBJ(pipe, workspace, mm, tiling) \
  do {                                                 \
    (void)(workspace);                                 \
    (mm).Init((tiling), (pipe));                       \
  } while (0)

#endif /* EVOKERNEL_LIB_MATMUL_INTF_H_ */
