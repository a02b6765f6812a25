// task: builtin:level1/leaky_relu
// expect: feasible
// honest: C++14 digit separators in constants; the old scanner read 1'000 as a character
// literal and blanked what followed.
#include "evokernel/kernel_abi.h"

namespace {
constexpr int64_t kBlock = 4'096;
constexpr float kSlope = 0.01f;
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]);
  for (int64_t b = 0; b < n; b += kBlock)
    for (int64_t i = b; i < b + kBlock && i < n; ++i) y[i] = x[i] > 0 ? x[i] : kSlope * x[i];
  return 0;
}
