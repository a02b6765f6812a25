/* Host-side Matmul tiling (matmul_tiling::MultiCoreMatmulTiling, as in the public API): from
 * the shapes, the core count and the layouts it computes the TCubeTiling a kernel's Matmul
 * object is initialised with. The split: the cores form an mBlocks x nBlocks grid over C
 * (singleCoreM x singleCoreN each, multiples of 16), and every core walks its block in
 * baseM x baseN x baseK tiles sized to L0A/L0B/L0C. SetFixSplit overrides the base tile. */
#ifndef EVOKERNEL_TILING_TILING_API_H_
#define EVOKERNEL_TILING_TILING_API_H_
#include <stddef.h>

#include <vector>

#include "evokernel/adv_tiling.h"
#include "evokernel/cube_tiling.h"
#include "kernel_operator.h"

namespace ge {
/* A tensor shape as the host-side tiling APIs take it (graph/tensor.h's ge::Shape). */
class Shape {
 public:
  Shape() {}
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
  size_t GetDimNum() const { return dims_.size(); }
  int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
  std::vector<int64_t> GetDims() const { return dims_; }
  int64_t GetShapeSize() const {
    int64_t s = 1;
    for (int64_t d : dims_) s *= d;
    return s;
  }

 private:
  std::vector<int64_t> dims_;
};
}  // namespace ge

namespace AscendC {
/* SoftMax tiling: the shape as [m, k] (k the last axis); the emulated SoftMax needs no
 * temporary space beyond the max and sum blocks, so both sizes are 0. */
inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape&, const uint32_t, const bool) { return 0; }
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape&, const uint32_t, const bool) { return 0; }
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t localWorkSpaceSize, SoftMaxTiling& t) {
  (void)localWorkSpaceSize;
  size_t n = srcShape.GetDimNum();
  uint32_t k = n ? static_cast<uint32_t>(srcShape.GetDim(n - 1)) : 1;
  uint32_t m = static_cast<uint32_t>(srcShape.GetShapeSize() / (k ? k : 1));
  t = SoftMaxTiling();
  t.srcM = t.outMaxM = t.splitM = t.reduceM = t.rangeM = m;
  t.srcK = t.splitK = k;
  t.srcSize = t.splitSize = m * k;
  t.outMaxK = t.reduceK = 32 / (dataTypeSize ? dataTypeSize : 4);
  t.outMaxSize = t.reduceSize = m * t.outMaxK;
}
/* LayerNorm tiling for a [B, S, H] input: the sharedTmpBuffer holds two 32-byte blocks and one
 * row of H elements (the minimum and the maximum alike). */
inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                      const bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
  (void)isReuseSource;
  size_t n = srcShape.GetDimNum();
  uint32_t h = n ? static_cast<uint32_t>(srcShape.GetDim(n - 1)) : 1;
  minValue = maxValue = 64 + (h * typeSize + 31) / 32 * 32;
}
inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource,
                                     LayerNormTiling& t) {
  (void)stackBufferSize;
  (void)typeSize;
  (void)isReuseSource;
  size_t n = srcShape.GetDimNum();
  t = LayerNormTiling();
  t.hLength = t.originalHLength = n ? static_cast<uint32_t>(srcShape.GetDim(n - 1)) : 1;
  t.sLength = n >= 2 ? static_cast<uint32_t>(srcShape.GetDim(n - 2)) : 1;
  t.bLength = static_cast<uint32_t>(srcShape.GetShapeSize() / t.hLength / t.sLength);
  t.inputXSize = t.bLength * t.sLength * t.hLength;
  t.meanVarSize = t.bLength * t.sLength;
  t.lastDimValueBack = 1.0f / static_cast<float>(t.hLength);
}
}  // namespace AscendC
namespace optiling {
using AscendC::GetLayerNormNDTilingInfo;
using AscendC::SoftMaxTilingFunc;
}  // namespace optiling

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
