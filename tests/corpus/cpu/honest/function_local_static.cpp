// task: builtin:level1/matvec
// expect: feasible
// honest: a function-local static std::vector reused across calls (its destructor is
// registered at the first call, not at load time, and must pass the load-time check).
#include <cstddef>
#include <vector>

#include "evokernel/kernel_abi.h"

namespace {
std::vector<double>& scratch(std::size_t n) {
  static std::vector<double> buf;
  if (buf.size() < n) buf.resize(n);
  return buf;
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* v = static_cast<const float*>(in[1].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1];
  std::vector<double>& acc = scratch(static_cast<std::size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    acc[i] = 0;
    for (int64_t j = 0; j < k; ++j) acc[i] += static_cast<double>(a[i * k + j]) * v[j];
  }
  for (int64_t i = 0; i < m; ++i) y[i] = static_cast<float>(acc[i]);
  return 0;
}
