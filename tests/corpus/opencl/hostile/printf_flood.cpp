// task: builtin:level1/relu
// expect: mismatch
// feedback: seed 0
// (since the runner protocol change PoCL stops the flooding launch part-way without reaching
// the output cap: the outputs are incomplete and the verdict a mismatch; to be understood)
// gates: no-static-source no-instruction-scan
// hostile: every work-item prints, flooding the output: capped and reported.
#include "evokernel/opencl.h"

static const char* kSource = R"evk_cl(
__kernel void flood(__global float* y, long n) {
  long i = get_global_id(0);
  for (int k = 0; k < 2; ++k) printf("flood flood flood flood flood flood flood %ld\n", i);
  if (i < n) y[i] = 0.0f;
}
)evk_cl";

extern "C" EVK_EXPORT int evk_forward(const evk_tensor*, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  if (!rt.ok()) return rt.fail();
  cl_kernel k = evk_cl::kernel(rt, "flood");
  evk_cl::Buffer y(rt, out[0], CL_MEM_WRITE_ONLY);
  cl_long n = evk_cl::numel(out[0]);
  EVK_CL_CHECK(evk_cl::set_args(k, y, n));
  EVK_CL_CHECK(evk_cl::launch(rt, k, n, 64));
  return evk_cl::finish(rt, y);
}
