/* evokernel kernel ABI for the opencl backend: the same C ABI as the cpu backend, so the
 * harness (evk-runner) calls an OpenCL candidate exactly like a CPU one.
 * Candidates include "evokernel/opencl.h" (which includes this header) and define exactly one
 * exported function:
 *
 *   EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out);
 *
 * Contract the harness keeps:
 *   - `in` holds the forward() inputs in get_inputs() order, then the model's parameters and
 *     buffers in state_dict() order. A non-tensor input (an int or float) is a 0-d tensor.
 *   - `out` holds the outputs, already allocated in host memory with the reference shapes and
 *     dtypes; the kernel writes every element (they are poisoned with NaN before the call).
 *   - All tensors are dense, row-major and contiguous; `strides` are in elements.
 *   - Return 0 on success; any other value is reported to you as a runtime failure.
 *   - Inputs are read-only: writing to them is detected and rejected.
 *   - Every result must be in the host memory of `out` when evk_forward returns.
 *
 * The computation runs in OpenCL C kernels (see knowledge/opencl/guide.md); the host code only
 * wraps tensors in buffers, sets arguments and launches. Not allowed: files, sockets,
 * processes, threads, timers, environment, BLAS/clBLAS/CLBlast, host-side computation. */
#ifndef EVOKERNEL_KERNEL_ABI_H_
#define EVOKERNEL_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Codes match evokernel's DType (src/core/tensor.h). */
enum {
  EVK_F32 = 0,
  EVK_F64 = 1,
  EVK_I32 = 2,
  EVK_I64 = 3,
  EVK_BOOL = 4, /* one byte per element, 0 or 1 */
  EVK_U8 = 5,
  EVK_F16 = 6
};

typedef struct {
  void* data;
  int32_t dtype;
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;
} evk_tensor;

#define EVK_EXPORT __attribute__((visibility("default")))

EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out);

#ifdef __cplusplus
}
#endif

/* Number of elements of a tensor (1 for a 0-d tensor). */
static inline int64_t evk_numel(const evk_tensor* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

#endif /* EVOKERNEL_KERNEL_ABI_H_ */
