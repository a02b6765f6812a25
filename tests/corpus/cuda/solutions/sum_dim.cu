// task: builtin:level1/sum_dim
// expect: feasible
// what: sum over dim 1 of (B, R, C): one thread per output (b, c), reading down the reduced
// dimension; neighbouring threads read neighbouring columns, so every load is coalesced.
#include "evokernel/kernel_abi.h"
#include <cstdint>

namespace {

__global__ void sum_middle(const float* __restrict__ x, float* __restrict__ y, int64_t outer,
                           int64_t reduced, int64_t inner) {
  const int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (o >= outer * inner) return;
  const int64_t b = o / inner, c = o % inner;
  const float* p = x + b * reduced * inner + c;
  float s = 0.0f;
  for (int64_t r = 0; r < reduced; ++r) s += p[r * inner];
  y[o] = s;
}

}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  if (n_in < 1 || n_out < 1 || in[0].ndim != 3) return 1;
  const int64_t outer = in[0].shape[0], reduced = in[0].shape[1], inner = in[0].shape[2];
  const int64_t n = outer * inner;
  if (n == 0) return 0;
  sum_middle<<<static_cast<unsigned>((n + 255) / 256), 256>>>(
      static_cast<const float*>(in[0].data), static_cast<float*>(out[0].data), outer, reduced, inner);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
