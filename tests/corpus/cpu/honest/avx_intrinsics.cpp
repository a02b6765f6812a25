// task: builtin:level1/relu
// expect: feasible
// honest: AVX2 intrinsics with a scalar tail, `#include <immintrin.h>` and a helper `section`.
#include <immintrin.h>

#include "evokernel/kernel_abi.h"

namespace {
void section(const float* x, float* y, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i) y[i] = x[i] < 0 ? 0 : x[i];
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]);
  int64_t i = 0;
#ifdef __AVX2__
  const __m256 zero = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_max_ps(zero, _mm256_loadu_ps(x + i)));
#endif
  section(x, y, i, n);
  return 0;
}
