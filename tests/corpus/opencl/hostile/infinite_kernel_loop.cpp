// task: builtin:level1/relu
// expect: timeout
// hostile: the OpenCL kernel never ends; the runner's process group (PoCL's threads too) is
// killed at the wall-clock limit.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void spin(__global float* y, long n) {
  volatile long i = 0;
  while (i >= 0) i = (i + 1) % 1000;
  y[0] = (float)i;
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel k = evk_cl::kernel(rt, "spin");
  evk_cl::Buffer y(rt, out[0], CL_MEM_WRITE_ONLY);
  cl_long n = evk_cl::numel(out[0]);
  EVK_CL_CHECK(evk_cl::set_args(k, y, n));
  EVK_CL_CHECK(evk_cl::launch(rt, k, 1, 1));
  return evk_cl::finish(rt, y);
}
