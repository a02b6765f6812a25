// task: builtin:level1/gelu
// expect: feasible
// honest: prints a one-line note on the first call (printf to stdout, fprintf to stderr);
// the compiler turns the constant fprintf into fwrite, which the import allowlist must take.
#include <cmath>
#include <cstdio>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  static bool said = false;
  const int64_t n = evk_numel(&in[0]);
  if (!said) {
    std::printf("gelu over %lld elements\n", static_cast<long long>(n));
    std::fprintf(stderr, "gelu: exact erf form\n");
    said = true;
  }
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678f));
  return 0;
}
