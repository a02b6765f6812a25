// task: builtin:level1/layer_norm
// expect: feasible
// LayerNorm over the last dimension (in[1] = weight, in[2] = bias, eps 1e-5): one work-item
// per row, two passes (mean, then variance about the mean) for accuracy.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void layer_norm(__global const float* x, __global const float* w, __global const float* b,
                         __global float* y, long rows, long cols) {
  long r = get_global_id(0);
  if (r >= rows) return;
  __global const float* xr = x + r * cols;
  __global float* yr = y + r * cols;
  float mean = 0.0f;
  for (long c = 0; c < cols; ++c) mean += xr[c];
  mean /= cols;
  float var = 0.0f;
  for (long c = 0; c < cols; ++c) { float d = xr[c] - mean; var += d * d; }
  float inv = rsqrt(var / cols + 1e-5f);
  for (long c = 0; c < cols; ++c) yr[c] = (xr[c] - mean) * inv * w[c] + b[c];
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel k = evk_cl::kernel(rt, "layer_norm");
  evk_cl::Buffer x(rt, in[0], CL_MEM_READ_ONLY), w(rt, in[1], CL_MEM_READ_ONLY);
  evk_cl::Buffer b(rt, in[2], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);
  cl_long cols = evk_cl::numel(in[1]);
  cl_long rows = evk_cl::numel(in[0]) / cols;
  EVK_CL_CHECK(evk_cl::set_args(k, x, w, b, y, rows, cols));
  EVK_CL_CHECK(evk_cl::launch(rt, k, rows, 16));
  return evk_cl::finish(rt, y);
}
