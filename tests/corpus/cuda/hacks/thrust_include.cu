// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// feedback: thrust/device_ptr.h
// cheat: lets Thrust launch the kernels.
#include "evokernel/kernel_abi.h"
#include <thrust/device_ptr.h>
#include <thrust/transform.h>

struct Relu {
  __device__ float operator()(float v) const { return v < 0.0f ? 0.0f : v; }
};

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  auto x = thrust::device_pointer_cast(static_cast<float*>(in[0].data));
  auto y = thrust::device_pointer_cast(static_cast<float*>(out[0].data));
  thrust::transform(x, x + evk_numel(&in[0]), y, Relu());
  return 0;
}
