// task: builtin:level1/matmul_square
// expect: feasible
// C = A B with 16x16 tiles staged in local memory: each work-group loads one tile of A and
// one of B per step (barrier before and after use); out-of-range tile elements load as 0.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
#define T 16
__kernel void matmul(__global const float* a, __global const float* b, __global float* c,
                     long m, long n, long k) {
  __local float ta[T][T], tb[T][T];
  int tx = get_local_id(0), ty = get_local_id(1);
  long col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (long t = 0; t < k; t += T) {
    ta[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
    tb[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int p = 0; p < T; ++p) acc += ta[ty][p] * tb[p][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel kern = evk_cl::kernel(rt, "matmul");
  evk_cl::Buffer a(rt, in[0], CL_MEM_READ_ONLY), b(rt, in[1], CL_MEM_READ_ONLY);
  evk_cl::Buffer c(rt, out[0], CL_MEM_WRITE_ONLY);
  cl_long m = evk_cl::dim(in[0], 0), k = evk_cl::dim(in[0], 1), n = evk_cl::dim(in[1], 1);
  EVK_CL_CHECK(evk_cl::set_args(kern, a, b, c, m, n, k));
  EVK_CL_CHECK(evk_cl::launch2d(rt, kern, n, m, 16, 16));
  return evk_cl::finish(rt, c);
}
