/* evokernel CUDA kernel ABI (the same structs and dtype codes as the CPU ABI in
 * knowledge/cpu/evokernel/kernel_abi.h). Every candidate `kernel.cu` includes
 *   #include "evokernel/kernel_abi.h"
 * and defines exactly one exported host function:
 *
 *   extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out);
 *
 * Contract the harness (evk-runner-cuda) keeps:
 *   - Every `data` pointer is a DEVICE pointer (cudaMalloc'd, 256-byte aligned): pass it to
 *     kernels, never dereference it on the host. `shape` and `strides` are HOST memory: read
 *     sizes on the host and pass them to kernels as arguments.
 *   - `in` holds the forward() inputs in get_inputs() order, then the model's parameters and
 *     buffers in state_dict() order. A non-tensor input (an int or float) is a 0-d tensor.
 *   - `out` holds the outputs, already allocated with the reference shapes and dtypes; the
 *     kernel writes every element (they are poisoned with NaN before the call).
 *   - All tensors are dense, row-major and contiguous; `strides` are in elements.
 *   - Launch every kernel on the default stream (`<<<grid, block>>>` or stream 0) and return;
 *     the harness synchronises the device (all streams) after the call and times it with CUDA
 *     events. Return 0 on success; check cudaGetLastError() after launches and return nonzero
 *     when a launch failed.
 *   - Inputs are read-only: writing to them is detected and rejected.
 *
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC,-fvisibility=hidden
 *        -Xptxas -v -cudart shared   (the arch follows EVK_CUDA_ARCH; nothing else is linked)
 * Not allowed: cuBLAS, cuDNN, cuFFT, cuRAND, CUB, Thrust, libtorch; streams other than the
 * default one, events, graphs, host callbacks, host threads; copies from the device to the
 * host; files, sockets, processes, timers, environment, inline assembly. */
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
  void* data;             /* device memory */
  int32_t dtype;
  int32_t ndim;
  const int64_t* shape;   /* host memory */
  const int64_t* strides; /* host memory, in elements */
} evk_tensor;

#define EVK_EXPORT __attribute__((visibility("default")))

EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out);

#ifdef __cplusplus
}
#endif

/* Number of elements of a tensor (1 for a 0-d tensor). Host code only: shapes live on the host. */
static inline int64_t evk_numel(const evk_tensor* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

#endif /* EVOKERNEL_KERNEL_ABI_H_ */
