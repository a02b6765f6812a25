// task: builtin:level1/softmax
// expect: feasible
// honest: validates its inputs with <stdexcept> exceptions caught at the ABI boundary; the old
// header whitelist refused <stdexcept>.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "evokernel/kernel_abi.h"

namespace {
void softmax_rows(const evk_tensor& in, evk_tensor& out) {
  if (in.ndim < 1 || in.dtype != EVK_F32) throw std::invalid_argument("expected a float tensor");
  const int64_t d = in.shape[in.ndim - 1];
  if (d <= 0) throw std::runtime_error("empty last dimension: " + std::to_string(d));
  const float* x = static_cast<const float*>(in.data);
  float* y = static_cast<float*>(out.data);
  for (int64_t r = 0, rows = evk_numel(&in) / d; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    const float m = *std::max_element(xr, xr + d);
    float s = 0;
    for (int64_t i = 0; i < d; ++i) s += (yr[i] = std::exp(xr[i] - m));
    for (int64_t i = 0; i < d; ++i) yr[i] /= s;
  }
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  try {
    softmax_rows(in[0], out[0]);
    return 0;
  } catch (const std::exception&) {
    return 1;
  }
}
