// task: builtin:level1/sigmoid
// expect: feasible
// honest: function-like macros with token pasting to declare helpers, a multi-line macro with
// line continuations, and `_Pragma("omp simd")` inside it: the old CUDA and OpenCL rules
// refused `##` and backslash-newlines outright.
#include <cmath>

#include "evokernel/kernel_abi.h"

#define DEFINE_ACT(name, expr) \
  inline float act_##name(float v) { return (expr); }

namespace {
DEFINE_ACT(sigmoid, 1.0f / (1.0f + std::exp(-v)))
}  // namespace

#define APPLY(fn, x, y, n)          \
  do {                              \
    _Pragma("omp simd")             \
    for (int64_t i = 0; i < (n); ++i) \
      (y)[i] = fn((x)[i]);          \
  } while (0)

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  APPLY(act_sigmoid, x, y, evk_numel(&in[0]));
  return 0;
}
