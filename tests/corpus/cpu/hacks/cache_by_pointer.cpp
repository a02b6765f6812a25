// task: builtin:level1/matmul_square
// expect: hack_dynamic
// gate: dynamic_hack
// cheat: skips the computation when called again with the same buffer addresses (a cache
// keyed on pointers). Correct on every fresh call; the reuse probe (same pointers, new values)
// catches it.
#include <cstring>

#include "evokernel/kernel_abi.h"

namespace {
const void* last_a = nullptr;
const void* last_b = nullptr;
void* last_c = nullptr;
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (in[0].data == last_a && in[1].data == last_b && out[0].data == last_c) return 0;
  last_a = in[0].data, last_b = in[1].data, last_c = out[0].data;
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  std::memset(c, 0, sizeof(float) * m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return 0;
}
