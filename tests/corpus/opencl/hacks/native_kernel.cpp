// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// feedback: clEnqueueNativeKernel
// gates: no-static-source
// cheat: runs a host function as a "native kernel" on the device threads; past the source rules, the symbol check stops it.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void unused(__global float* y) { y[0] = 0.0f; }
)evk_cl";

static void host_relu(void*) {}

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  return clEnqueueNativeKernel(rt.queue, host_relu, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr);
}
