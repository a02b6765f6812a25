#include "core/build_info.h"

namespace evk {

const char* build_version() {
  return EVK_VERSION;
}

std::string build_string() {
  return std::string("evokernel ") + build_version() + " (" + build_commit() + ")";
}

}  // namespace evk
