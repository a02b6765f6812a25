// task: builtin:level1/matmul_square
// expect: feasible
// what: C = A @ B with 32x32 shared-memory tiles; each thread computes a 1x4 strip of C
// (block 32x8), so every A value loaded into a register feeds four FMAs.
#include "evokernel/kernel_abi.h"
#include <cstdint>

namespace {

constexpr int kTile = 32;

__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int m, int n, int k) {
  __shared__ float as[kTile][kTile + 1];  // +1: no bank conflicts on the column reads
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8
  const int row0 = blockIdx.y * kTile, col = blockIdx.x * kTile + tx;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < k; k0 += kTile) {
    for (int r = ty; r < kTile; r += 8) {
      const int ar = row0 + r, ac = k0 + tx;
      as[r][tx] = ar < m && ac < k ? a[static_cast<int64_t>(ar) * k + ac] : 0.0f;
      const int br = k0 + r;
      bs[r][tx] = br < k && col < n ? b[static_cast<int64_t>(br) * n + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < kTile; ++kk) {
      const float bv = bs[kk][tx];
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[i] += as[ty + 8 * i][kk] * bv;
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + ty + 8 * i;
    if (r < m && col < n) c[static_cast<int64_t>(r) * n + col] = acc[i];
  }
}

}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  if (n_in < 2 || n_out < 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  const int m = static_cast<int>(in[0].shape[0]), k = static_cast<int>(in[0].shape[1]);
  const int n = static_cast<int>(in[1].shape[1]);
  if (in[1].shape[0] != k) return 1;
  if (m == 0 || n == 0) return 0;
  dim3 block(kTile, 8), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  matmul_tiled<<<grid, block>>>(static_cast<const float*>(in[0].data),
                                static_cast<const float*>(in[1].data),
                                static_cast<float*>(out[0].data), m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
