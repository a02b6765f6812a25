// Element types' names, for messages (dtype.h has the rest).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
namespace emu {

const char* dtype_text(int32_t d) {
  switch (d) {
    case EVK_F32:
      return "float";
    case EVK_I32:
      return "int32_t";
    case EVK_F16:
      return "half";
    case EVK_U8:
      return "uint8_t";
    default:
      return "an unsupported type";
  }
}

const char* position_text(int32_t p) {
  static const char* names[EVK_POS_COUNT] = {"GM", "A1",  "A2",  "B1",    "B2",     "C1",
                                             "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC"};
  return p >= 0 && p < EVK_POS_COUNT ? names[p] : "an unknown position";
}

}  // namespace emu
}  // namespace evk::runner::ascendc
