/* TCubeTiling: the Matmul tiling the host computes (tiling/tiling_api.h) and passes to the
 * kernel by value; the fields a kernel reads are those of the public TCubeTiling. */
#ifndef EVOKERNEL_CUBE_TILING_H_
#define EVOKERNEL_CUBE_TILING_H_
#include <stdint.h>

struct TCubeTiling {
  int32_t usedCoreNum = 1;
  int32_t M = 0, N = 0, Ka = 0, Kb = 0;
  int32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
  int32_t baseM = 0, baseN = 0, baseK = 0;
  int32_t depthA1 = 2, depthB1 = 2, stepM = 1, stepN = 1, stepKa = 1, stepKb = 1;
  int32_t isBias = 0;
  int32_t transA = 0, transB = 0; /* evokernel: the layouts SetAType/SetBType declared */
};

#endif /* EVOKERNEL_CUBE_TILING_H_ */
