// The emulator's singletons and its end of a run. The rest of the emulator is one file per
// concept: dtype, gm (global memory), local (queues and buffers), launch, schedule (pipes and
// cost), checks, and the operations ops_copy, ops_vector, ops_scalar, ops_cube.
#include "emulator.h"

#include <cstdio>
#include <cstdlib>

#include "emulator_impl.h"

namespace evk::runner::ascendc {

Emulator& Emulator::get() {
  static Emulator e;
  return e;
}

Emulator::Impl& Emulator::impl() {
  static Impl i;
  return i;
}

void Emulator::fail(const std::string& category, const std::string& message) {
  std::string m = "[" + category + "] " + message;
  if (fail_) fail_(category, m);
  std::fprintf(stderr, "%s\n", m.c_str());
  std::_Exit(3);
}

}  // namespace evk::runner::ascendc
