// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// feedback: fopen
// cheat: reads a reference output file on the host.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void unused(__global float* y) { y[0] = 0.0f; }
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  FILE* f = fopen("/tmp/evk-ocl-ws/cache/refs/relu.safetensors", "rb");
  evk_cl::runtime(kSource);
  return f ? 0 : 1;
}
