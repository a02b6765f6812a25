// task: builtin:level1/relu
// expect: runtime_crash
// hostile: asks the device for a 64 GiB buffer and touches it; the allocation fails under the
// runner's address-space limit and the kernel can only report the error.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void fill(__global float* big, long n) {
  long i = get_global_id(0);
  big[i * 1024] = 1.0f;
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel k = evk_cl::kernel(rt, "fill");
  evk_cl::Scratch big(rt, size_t{64} << 30);
  cl_long n = (cl_long{64} << 30) / 4096;
  EVK_CL_CHECK(evk_cl::set_args(k, big, n));
  EVK_CL_CHECK(evk_cl::launch(rt, k, n, 64));
  EVK_CL_CHECK(clFinish(rt.queue));
  return 0;
}
