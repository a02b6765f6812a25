// task: builtin:level1/sum_dim
// expect: feasible
// Sum over the middle dimension of [outer, reduce, inner]: one work-item per output element
// (o, i), reading down the reduced dimension; neighbouring work-items read neighbouring
// addresses.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void sum_mid(__global const float* x, __global float* y, long reduce, long inner, long total) {
  long g = get_global_id(0);
  if (g >= total) return;
  long o = g / inner, i = g % inner;
  __global const float* p = x + o * reduce * inner + i;
  float s = 0.0f;
  for (long r = 0; r < reduce; ++r) s += p[r * inner];
  y[g] = s;
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel k = evk_cl::kernel(rt, "sum_mid");
  evk_cl::Buffer x(rt, in[0], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);
  cl_long reduce = evk_cl::dim(in[0], 1);
  cl_long inner = evk_cl::numel_range(in[0], 2);
  cl_long total = evk_cl::numel(out[0]);
  EVK_CL_CHECK(evk_cl::set_args(k, x, y, reduce, inner, total));
  EVK_CL_CHECK(evk_cl::launch(rt, k, total, 64));
  return evk_cl::finish(rt, y);
}
