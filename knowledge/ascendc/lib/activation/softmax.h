/* SoftMax (high-level API) over the last axis of an [m, k] ND tensor in the Unified Buffer:
 * dst = exp(src - rowmax) / rowsum, with each row's max and sum written to maxTensor and
 * sumTensor as one 32-byte block per row (the value repeated). Composed from the vector
 * instructions (ReduceMax, Adds, Exp, ReduceSum, Muls, Duplicate) and charged as such; rows are
 * reduced in chunks of 256 bytes' repeats that fit the 32-byte max/sum blocks, so it needs no
 * temporary space beyond them (a sharedTmpBuffer is accepted and not needed). srcK must be a
 * multiple of 32 bytes; the oriSrcK data elements of each row are what is reduced. */
#ifndef EVOKERNEL_LIB_SOFTMAX_H_
#define EVOKERNEL_LIB_SOFTMAX_H_
#include "evokernel/adv_tiling.h"
#include "kernel_operator.h"

namespace AscendC {
namespace evk_detail {

// The max (isMax) or sum of `n` elements of `src`, reduced in chunks whose work fits one
// 32-byte block: `dst` and `work` are two such blocks.
template <class T>
__aicore__ inline T ReduceChunked(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LocalTensor<T>& work, uint32_t n, bool isMax) {
  const uint32_t chunk = 8 * 256 / sizeof(T);  // 8 repeats: a work block of 8 elements
  T acc = 0;
  for (uint32_t c = 0; c < n; c += chunk) {
    int32_t len = static_cast<int32_t>(n - c < chunk ? n - c : chunk);
    if (isMax)
      ReduceMax(dst, src[c], work, len);
    else
      ReduceSum(dst, src[c], work, len);
    T v = dst.GetValue(0);
    acc = c == 0 ? v : (isMax ? (v > acc ? v : acc) : static_cast<T>(acc + v));
  }
  return acc;
}

template <class T>
__aicore__ inline void SoftMaxRows(const LocalTensor<T>& dst, const LocalTensor<T>& sum,
                                   const LocalTensor<T>& max, const LocalTensor<T>& src,
                                   uint32_t m, uint32_t k, uint32_t oriK) {
  const uint32_t blk = 32 / sizeof(T);
  if (oriK == 0 || oriK > k) oriK = k;
  for (uint32_t i = 0; i < m; ++i) {
    LocalTensor<T> d = dst[i * k], s = src[i * k], mx = max[i * blk], sm = sum[i * blk];
    T rowMax = ReduceChunked(mx, s, sm, oriK, true);
    Adds(d, s, static_cast<T>(-rowMax), static_cast<int32_t>(k));
    Exp(d, d, static_cast<int32_t>(k));
    T rowSum = ReduceChunked(sm, d, mx, oriK, false);
    Muls(d, d, static_cast<T>(1 / static_cast<float>(rowSum)), static_cast<int32_t>(k));
    Duplicate(mx, rowMax, static_cast<int32_t>(blk));
    Duplicate(sm, rowSum, static_cast<int32_t>(blk));
  }
}

}  // namespace evk_detail

template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false>
__aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
                               const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                               const SoftMaxTiling& tiling,
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  uint32_t m = softmaxShapeInfo.srcM ? softmaxShapeInfo.srcM : tiling.srcM;
  uint32_t k = softmaxShapeInfo.srcK ? softmaxShapeInfo.srcK : tiling.srcK;
  evk_detail::SoftMaxRows(dstTensor, sumTensor, maxTensor, srcTensor, m, k,
                          softmaxShapeInfo.oriSrcK);
}

template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false>
__aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
                               const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                               const LocalTensor<uint8_t>& sharedTmpBuffer,
                               const SoftMaxTiling& tiling,
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  (void)sharedTmpBuffer;
  SoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ>(dstTensor, sumTensor, maxTensor,
                                                          srcTensor, tiling, softmaxShapeInfo);
}

}  // namespace AscendC

#endif /* EVOKERNEL_LIB_SOFTMAX_H_ */
