// task: builtin:level1/tanh
// expect: feasible
// honest: a struct field `section`, a helper `exit_value` and a local `exit` flag; the old rules
// rejected `section` (custom sections) and `exit` (ending the process).
#include <cmath>

#include "evokernel/kernel_abi.h"

namespace {
struct Chunk {
  int64_t section;  // first element of this chunk
  int64_t length;
};
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]);
  bool exit = false;
  for (Chunk c{0, 1024}; !exit; c.section += c.length) {
    for (int64_t i = c.section; i < c.section + c.length && i < n; ++i) y[i] = std::tanh(x[i]);
    exit = c.section + c.length >= n;
  }
  return 0;
}
