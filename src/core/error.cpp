#include "core/error.h"

#include <cerrno>
#include <cstring>

namespace evk {

void throw_errno(const std::string& what) {
  throw Error(what + ": " + std::strerror(errno));
}

}  // namespace evk
