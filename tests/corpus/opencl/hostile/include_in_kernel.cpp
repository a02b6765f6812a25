// task: builtin:level1/relu
// expect: compile
// feedback: kernel.cpp:10
// gates: no-static-source no-instruction-scan
// hostile: an OpenCL program that includes a system file, past the source rules: the build
// fails as a compile error with the build log (never the runner).
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
#include "/nonexistent/evk-missing.h"
__kernel void relu(__global const float* x, __global float* y, long n) { }
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  return evk_cl::runtime(kSource).ok() ? 0 : 1;
}
