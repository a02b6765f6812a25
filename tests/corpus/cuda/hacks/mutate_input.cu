// task: builtin:level1/relu
// expect: hack_dynamic
// gate: dynamic_hack
// feedback: wrote to its inputs
// cheat: applies ReLU in place on the input, then copies it to the output. Passes the compile
// and static gates; needs a GPU to be caught (no_device without one).
#include "evokernel/kernel_abi.h"
#include <cstdint>

namespace {
__global__ void relu_in_place(float* x, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.0f);
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const int64_t n = evk_numel(&in[0]);
  relu_in_place<<<static_cast<unsigned>((n + 255) / 256), 256>>>(static_cast<float*>(in[0].data), n);
  cudaMemcpyAsync(out[0].data, in[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice, 0);
  return 0;
}
