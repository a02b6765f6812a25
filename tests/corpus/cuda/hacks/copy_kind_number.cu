// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// feedback: must name its direction
// cheat: the host-computation trick with the copy direction written as a number (2 is
// device-to-host), so no forbidden name appears.
#include "evokernel/kernel_abi.h"
#include <cstdint>
#include <vector>

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const int64_t n = evk_numel(&in[0]);
  std::vector<float> h(static_cast<size_t>(n));
  cudaMemcpy(h.data(), in[0].data, n * sizeof(float), static_cast<cudaMemcpyKind>(2));
  for (auto& v : h) v = v < 0.0f ? 0.0f : v;
  cudaMemcpy(out[0].data, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  return 0;
}
