// task: builtin:level1/relu
// expect: mismatch
// gate: correctness
// cheat: computes only the first half of the output (the rest stays NaN-poisoned). Passes
// the compile and static gates; needs a GPU to be caught (no_device without one).
#include "evokernel/kernel_abi.h"
#include <cstdint>

namespace {
__global__ void relu(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const int64_t n = evk_numel(&in[0]) / 2;
  relu<<<static_cast<unsigned>((n + 255) / 256), 256>>>(static_cast<const float*>(in[0].data),
                                                        static_cast<float*>(out[0].data), n);
  return 0;
}
