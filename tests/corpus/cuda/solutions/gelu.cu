// task: builtin:level1/gelu
// expect: feasible
// what: exact (erf) GELU, one element per thread.
#include "evokernel/kernel_abi.h"
#include <cstdint>

namespace {

__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  }
}

}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  if (n_in < 1 || n_out < 1) return 1;
  const int64_t n = evk_numel(&in[0]);
  if (n == 0) return 0;
  gelu<<<static_cast<unsigned>((n + 255) / 256), 256>>>(static_cast<const float*>(in[0].data),
                                                        static_cast<float*>(out[0].data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
