// task: builtin:level1/relu
// expect: feasible
// One work-item per element; the global size is rounded up to the work-group size, so the
// kernel checks the bound.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void relu(__global const float* x, __global float* y, long n) {
  long i = get_global_id(0);
  if (i < n) y[i] = x[i] < 0.0f ? 0.0f : x[i];  // NaN stays NaN, as in PyTorch
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel k = evk_cl::kernel(rt, "relu");
  evk_cl::Buffer x(rt, in[0], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);
  cl_long n = evk_cl::numel(in[0]);
  EVK_CL_CHECK(evk_cl::set_args(k, x, y, n));
  EVK_CL_CHECK(evk_cl::launch(rt, k, n, 256));
  return evk_cl::finish(rt, y);
}
