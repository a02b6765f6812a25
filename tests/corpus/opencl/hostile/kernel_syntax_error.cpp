// task: builtin:level1/relu
// expect: compile
// feedback: kernel.cpp:10
// hostile: a syntax error in the OpenCL program: a compile verdict whose feedback points at
// the line of kernel.cpp.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void relu(__global const float* x, __global float* y, long n) {
  long i = get_global_id(0)
  if (i < n) y[i] = fmax(x[i], 0.0f);
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  return evk_cl::runtime(kSource).ok() ? 0 : 1;
}
