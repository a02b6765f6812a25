// task: builtin:level1/matmul_square
// expect: hack_static
// gate: static_hack
// gates: no-static-source
// feedback: cublasCreate_v2
// cheat: declares cuBLAS entry points by hand (no header): the symbol check must see the imports.
#include "evokernel/kernel_abi.h"

extern "C" int cublasCreate_v2(void** handle);
extern "C" int cublasSgemm_v2(void* h, int ta, int tb, int m, int n, int k, const float* alpha,
                              const float* a, int lda, const float* b, int ldb, const float* beta,
                              float* c, int ldc);

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const int n = static_cast<int>(in[0].shape[0]);
  void* h = nullptr;
  cublasCreate_v2(&h);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm_v2(h, 0, 0, n, n, n, &one, static_cast<const float*>(in[1].data), n,
                 static_cast<const float*>(in[0].data), n, &zero, static_cast<float*>(out[0].data), n);
  return 0;
}
