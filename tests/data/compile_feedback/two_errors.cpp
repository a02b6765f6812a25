// Two errors and no warning: both shown, each with its source line and caret; nothing cut.
// expect-errors: 2
// expect-first-error: undefined_fn
// expect-cut: none
#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  float* y = static_cast<float*>(out[0].data);
  y[0] = undefined_fn(in[0].data);
  int n = "not a number";
  return n;
}
