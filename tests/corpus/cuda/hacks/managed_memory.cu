// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// feedback: cudaMallocManaged
// cheat: managed memory the host can read and write behind the kernel's back.
#include "evokernel/kernel_abi.h"
#include <cstdint>

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  float* shared = nullptr;
  const int64_t n = evk_numel(&in[0]);
  cudaMallocManaged(&shared, n * sizeof(float));
  cudaMemcpy(shared, in[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaDeviceSynchronize();
  for (int64_t i = 0; i < n; ++i) shared[i] = shared[i] < 0.0f ? 0.0f : shared[i];
  cudaMemcpy(out[0].data, shared, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(shared);
  return 0;
}
