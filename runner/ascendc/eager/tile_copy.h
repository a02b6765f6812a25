// The library's copies between global memory and a UB tile: DataCopy when the length is whole
// 32-byte blocks, else DataCopyPad of its exact bytes (a library kernel takes any length).
#pragma once
#include "kernel_operator.h"

namespace evk::runner::ascendc::eager {

__aicore__ inline void copy_in(const AscendC::LocalTensor<float>& t,
                               const AscendC::GlobalTensor<float>& g, uint32_t n) {
  if (n % 8 == 0)
    AscendC::DataCopy(t, g, n);
  else
    AscendC::DataCopyPad(t, g, AscendC::DataCopyExtParams(1, n * 4, 0, 0, 0),
                         AscendC::DataCopyPadExtParams<float>());
}

__aicore__ inline void copy_out(const AscendC::GlobalTensor<float>& g,
                                const AscendC::LocalTensor<float>& t, uint32_t n) {
  if (n % 8 == 0)
    AscendC::DataCopy(g, t, n);
  else
    AscendC::DataCopyPad(g, t, AscendC::DataCopyExtParams(1, n * 4, 0, 0, 0));
}

}  // namespace evk::runner::ascendc::eager
