// task: builtin:level1/matmul_square
// expect: hack_static
// gate: static_hack
// feedback: clBLAS
// cheat: calls clBLAS instead of writing the kernel.
#include "evokernel/opencl.h"

extern "C" int clblasSgemm(int, int, int, size_t, size_t, size_t, cl_float, cl_mem, size_t, size_t,
                           cl_mem, size_t, size_t, cl_float, cl_mem, size_t, size_t, cl_uint,
                           cl_command_queue*, cl_uint, const cl_event*, cl_event*);
static const char* kSource = R"evk_cl(
__kernel void unused(__global float* y) { y[0] = 0.0f; }
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  evk_cl::Buffer a(rt, in[0], CL_MEM_READ_ONLY), b(rt, in[1], CL_MEM_READ_ONLY), c(rt, out[0], 0);
  size_t n = evk_cl::dim(in[0], 0);
  clblasSgemm(0, 0, 0, n, n, n, 1, a.mem, 0, n, b.mem, 0, n, 0, c.mem, 0, n, 1, &rt.queue, 0, nullptr, nullptr);
  return evk_cl::finish(rt, c);
}
