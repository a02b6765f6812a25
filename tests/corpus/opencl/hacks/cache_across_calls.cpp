// task: builtin:level1/relu
// expect: hack_dynamic
// gate: dynamic_hack
// feedback: byte-for-byte
// cheat: computes once into a device buffer kept across calls, then only copies it out.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void relu(__global const float* x, __global float* y, long n) {
  long i = get_global_id(0);
  if (i < n) y[i] = fmax(x[i], 0.0f);
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  static evk_cl::Scratch* saved = nullptr;
  cl_long n = evk_cl::numel(in[0]);
  evk_cl::Buffer y(rt, out[0], CL_MEM_WRITE_ONLY);
  if (!saved) {
    saved = new evk_cl::Scratch(rt, evk_cl::nbytes(out[0]));
    evk_cl::Buffer x(rt, in[0], CL_MEM_READ_ONLY);
    cl_kernel k = evk_cl::kernel(rt, "relu");
    EVK_CL_CHECK(evk_cl::set_args(k, x, *saved, n));
    EVK_CL_CHECK(evk_cl::launch(rt, k, n, 256));
    EVK_CL_CHECK(clFinish(rt.queue));
  }
  EVK_CL_CHECK(clEnqueueCopyBuffer(rt.queue, saved->mem, y.mem, 0, 0, evk_cl::nbytes(out[0]), 0, nullptr, nullptr));
  return evk_cl::finish(rt, y);
}
