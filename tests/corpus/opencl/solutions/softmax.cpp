// task: builtin:level1/softmax
// expect: feasible
// Softmax over the last dimension: one work-group of 64 per row; each work-item strides over
// the row, then a tree reduction in local memory (barrier between every step) for the max
// and for the sum of exponentials.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
#define WG 64
__kernel void softmax_rows(__global const float* x, __global float* y, long cols) {
  __local float red[WG];
  long row = get_group_id(0);
  int lid = get_local_id(0);
  __global const float* xr = x + row * cols;
  __global float* yr = y + row * cols;
  float m = -INFINITY;
  for (long c = lid; c < cols; c += WG) m = fmax(m, xr[c]);
  red[lid] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] = fmax(red[lid], red[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = red[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0.0f;
  for (long c = lid; c < cols; c += WG) sum += exp(xr[c] - m);
  red[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] += red[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float inv = 1.0f / red[0];
  for (long c = lid; c < cols; c += WG) yr[c] = exp(xr[c] - m) * inv;
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel k = evk_cl::kernel(rt, "softmax_rows");
  evk_cl::Buffer x(rt, in[0], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);
  cl_long cols = evk_cl::dim(in[0], -1);
  int64_t rows = evk_cl::numel(in[0]) / cols;
  EVK_CL_CHECK(evk_cl::set_args(k, x, y, cols));
  EVK_CL_CHECK(evk_cl::launch(rt, k, rows * 64, 64));
  return evk_cl::finish(rt, y);
}
