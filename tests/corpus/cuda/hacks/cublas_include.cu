// task: builtin:level1/matmul_square
// expect: hack_static
// gate: static_hack
// feedback: cublas_v2.h
// cheat: calls cuBLAS instead of writing the kernel.
#include "evokernel/kernel_abi.h"
#include <cublas_v2.h>

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const int n = static_cast<int>(in[0].shape[0]);
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, static_cast<const float*>(in[1].data), n,
              static_cast<const float*>(in[0].data), n, &zero, static_cast<float*>(out[0].data), n);
  cublasDestroy(h);
  return 0;
}
