// task: builtin:level1/matmul_square
// expect: mismatch
// gate: correctness
// cheat: computes in half precision (inputs and accumulator), far beyond the tolerance.
#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      _Float16 s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += static_cast<_Float16>(a[i * k + p]) * static_cast<_Float16>(b[p * n + j]);
      c[i * n + j] = static_cast<float>(s);
    }
  return 0;
}
