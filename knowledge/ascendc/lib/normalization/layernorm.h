/* LayerNorm (high-level API) over the last axis of a [B, S, H] tensor in the Unified Buffer:
 * output = (x - mean) / sqrt(var + epsilon) * gamma + beta per row of H, with each row's mean
 * and variance (biased) in outputMean and outputVariance ([B, S]). Composed from the vector
 * instructions (ReduceSum, Adds, Mul, Muls, Add) and scalar accesses, and charged as such. The
 * sharedTmpBuffer holds the squares of a row and the reductions' results: at least
 * GetLayerNormMaxMinTmpSize's minimum bytes (tiling/tiling_api.h). */
#ifndef EVOKERNEL_LIB_LAYERNORM_H_
#define EVOKERNEL_LIB_LAYERNORM_H_
#include "evokernel/adv_tiling.h"
#include "lib/activation/softmax.h"

namespace AscendC {

template <typename T, bool isReuseSource = false>
__aicore__ inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                                 const LocalTensor<T>& outputVariance,
                                 const LocalTensor<T>& inputX, const LocalTensor<T>& gamma,
                                 const LocalTensor<T>& beta,
                                 const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                                 LayerNormTiling& tiling) {
  const uint32_t blk = 32 / sizeof(T), rows = tiling.bLength * tiling.sLength;
  const uint32_t h = tiling.hLength, n = tiling.originalHLength ? tiling.originalHLength : h;
  LocalTensor<T> tmp = sharedTmpBuffer.ReinterpretCast<T>();
  LocalTensor<T> res = tmp, work = tmp[blk], sq = tmp[2 * blk];
  for (uint32_t r = 0; r < rows; ++r) {
    LocalTensor<T> x = inputX[r * h], y = output[r * h];
    T mean = static_cast<T>(evk_detail::ReduceChunked(res, x, work, n, false) /
                            static_cast<float>(n));
    Adds(y, x, static_cast<T>(-mean), static_cast<int32_t>(h));
    Mul(sq, y, y, static_cast<int32_t>(h));
    T var = static_cast<T>(evk_detail::ReduceChunked(res, sq, work, n, false) /
                           static_cast<float>(n));
    Muls(y, y, static_cast<T>(1 / __builtin_sqrtf(static_cast<float>(var + epsilon))),
         static_cast<int32_t>(h));
    Mul(y, y, gamma, static_cast<int32_t>(h));
    Add(y, y, beta, static_cast<int32_t>(h));
    outputMean.SetValue(r, mean);
    outputVariance.SetValue(r, var);
  }
}

}  // namespace AscendC

#endif /* EVOKERNEL_LIB_LAYERNORM_H_ */
