// Element types as the emulator stores them: sizes, names for messages, and the conversions
// between the bytes of local or global memory and the double every API call carries. Inline:
// the operations call them once per element.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "evokernel/kernel_abi.h"

namespace evk::runner::ascendc::emu {

// 0 for a type the emulator does not hold.
inline size_t dtype_bytes(int32_t d) {
  switch (d) {
    case EVK_F32:
    case EVK_I32:
      return 4;
    case EVK_F16:
      return 2;
    case EVK_U8:
      return 1;
    default:
      return 0;
  }
}

const char* dtype_text(int32_t d);
const char* position_text(int32_t p);  // a TPosition (EVK_POS_*)

inline double load(const uint8_t* p, int32_t d) {
  switch (d) {
    case EVK_F32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case EVK_I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case EVK_F16: {
      _Float16 v;
      std::memcpy(&v, p, 2);
      return static_cast<double>(v);
    }
    default:
      return *p;
  }
}

inline void store(uint8_t* p, int32_t d, double x) {
  switch (d) {
    case EVK_F32: {
      float v = static_cast<float>(x);
      std::memcpy(p, &v, 4);
      break;
    }
    case EVK_I32: {
      int32_t v =
          std::isnan(x) ? 0 : static_cast<int32_t>(std::clamp(x, -2147483648.0, 2147483647.0));
      std::memcpy(p, &v, 4);
      break;
    }
    case EVK_F16: {
      _Float16 v = static_cast<_Float16>(static_cast<float>(x));
      std::memcpy(p, &v, 2);
      break;
    }
    default:
      *p = static_cast<uint8_t>(x);
      break;
  }
}

inline uint32_t ceil_div(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

}  // namespace evk::runner::ascendc::emu
