/* The tiling structs of the SoftMax and LayerNorm high-level APIs (public field names; a
 * kernel passes them through its tiling data untouched), filled on the host by
 * tiling/tiling_api.h's SoftMaxTilingFunc and GetLayerNormNDTilingInfo. */
#ifndef EVOKERNEL_ADV_TILING_H_
#define EVOKERNEL_ADV_TILING_H_
#include <stdint.h>

struct SoftMaxTiling {
  uint32_t srcM = 0, srcK = 0, srcSize = 0;
  uint32_t outMaxM = 0, outMaxK = 0, outMaxSize = 0;
  uint32_t splitM = 0, splitK = 0, splitSize = 0;
  uint32_t reduceM = 0, reduceK = 0, reduceSize = 0;
  uint32_t rangeM = 0, tailM = 0, tailSplitSize = 0, tailReduceSize = 0;
};

/* The rows a call covers when not the tiling's: srcM rows of srcK (32-byte aligned) elements,
 * of which oriSrcK are data. */
struct SoftMaxShapeInfo {
  uint32_t srcM = 0, srcK = 0, oriSrcM = 0, oriSrcK = 0;
};

struct LayerNormTiling {
  uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0;
  uint32_t inputXSize = 0, meanVarSize = 0, numberOfTmpBuf = 0;
  uint32_t firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0;
  uint32_t loopRound = 0, inputRoundSize = 0, inputTailSize = 0, inputTailPos = 0;
  uint32_t meanVarRoundSize = 0, meanVarTailSize = 0, meanVarTailPos = 0;
  uint32_t bshCurLength = 0, bsCurLength = 0;
  float lastDimValueBack = 0;
};

namespace optiling {
using ::LayerNormTiling;
using ::SoftMaxTiling;
}  // namespace optiling

#endif /* EVOKERNEL_ADV_TILING_H_ */
