// task: builtin:level1/relu
// expect: feasible
// what: grid-stride elementwise ReLU with float4 loads where the size allows.
#include "evokernel/kernel_abi.h"
#include <cstdint>

namespace {

__global__ void relu4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    v.x = fmaxf(v.x, 0.0f);
    v.y = fmaxf(v.y, 0.0f);
    v.z = fmaxf(v.z, 0.0f);
    v.w = fmaxf(v.w, 0.0f);
    y[i] = v;
  }
}

__global__ void relu_tail(const float* __restrict__ x, float* __restrict__ y, int64_t from, int64_t n) {
  int64_t i = from + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {
  if (n_in < 1 || n_out < 1 || in[0].dtype != EVK_F32 || out[0].dtype != EVK_F32) return 1;
  const int64_t n = evk_numel(&in[0]);
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n4 = n / 4;  // cudaMalloc'd buffers are 256-byte aligned
  if (n4 > 0) {
    const int64_t blocks = (n4 + 255) / 256 < 4096 ? (n4 + 255) / 256 : 4096;
    relu4<<<static_cast<unsigned>(blocks), 256>>>(reinterpret_cast<const float4*>(x),
                                                   reinterpret_cast<float4*>(y), n4);
  }
  if (n - 4 * n4 > 0) relu_tail<<<1, 4>>>(x, y, 4 * n4, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
