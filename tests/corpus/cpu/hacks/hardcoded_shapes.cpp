// task: builtin:level1/matmul_square
// expect: mismatch
// gate: correctness
// feedback: second shape
// cheat: the fitted size (128) hard-coded instead of read from the tensors: right on every seed
// (all of one shape), so the old verifier accepted it. The second-shape set (odd extents)
// gives other sizes.
#include <cstring>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  constexpr int64_t N = 128;  // the size this kernel was written for
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t na = evk_numel(&in[0]), nc = evk_numel(&out[0]);  // only to stay in bounds
  std::memset(c, 0, sizeof(float) * nc);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t p = 0; p < N; ++p)
      for (int64_t j = 0; j < N; ++j)
        if (i * N + j < nc && i * N + p < na && p * N + j < na) c[i * N + j] += a[i * N + p] * b[p * N + j];
  return 0;
}
