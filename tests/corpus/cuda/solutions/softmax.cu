// task: builtin:level1/softmax
// expect: feasible
// what: one block per row; max and sum by warp shuffles and a shared-memory step.
#include "evokernel/kernel_abi.h"
#include <cmath>
#include <cstdint>

namespace {

constexpr int kThreads = 256;

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Every thread of the block gets the block's maximum (is_max) or sum.
__device__ float block_reduce(float v, bool is_max, float* smem) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = is_max ? warp_max(v) : warp_sum(v);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < kThreads / 32 ? smem[lane] : (is_max ? -INFINITY : 0.0f);
    w = is_max ? warp_max(w) : warp_sum(w);
    if (lane == 0) smem[0] = w;
  }
  __syncthreads();
  const float r = smem[0];
  __syncthreads();  // smem is reused by the next reduction
  return r;
}

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float smem[32];
  const float* row = x + blockIdx.x * cols;
  float* dst = y + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads) m = fmaxf(m, row[j]);
  m = block_reduce(m, true, smem);
  float s = 0.0f;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads) s += __expf(row[j] - m);
  s = block_reduce(s, false, smem);
  const float inv = 1.0f / s;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads) dst[j] = __expf(row[j] - m) * inv;
}

}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  if (n_in < 1 || n_out < 1 || in[0].ndim < 1) return 1;
  const int64_t cols = in[0].shape[in[0].ndim - 1];
  const int64_t rows = cols > 0 ? evk_numel(&in[0]) / cols : 0;
  if (rows == 0) return 0;
  softmax_rows<<<static_cast<unsigned>(rows), kThreads>>>(static_cast<const float*>(in[0].data),
                                                          static_cast<float*>(out[0].data), cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
