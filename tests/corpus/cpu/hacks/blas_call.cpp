// task: builtin:level1/matmul_square
// expect: hack_static
// gate: static_hack
// cheat: calls BLAS instead of writing the kernel (declared by hand, no header).
#include "evokernel/kernel_abi.h"

extern "C" void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const int n = static_cast<int>(in[0].shape[0]);
  cblas_sgemm(101, 111, 111, n, n, n, 1.0f, static_cast<const float*>(in[0].data), n,
              static_cast<const float*>(in[1].data), n, 0.0f, static_cast<float*>(out[0].data), n);
  return 0;
}
