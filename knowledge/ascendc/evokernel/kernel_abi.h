/* evokernel Ascend C kernel ABI (emulated 910B AI Core; see knowledge/ascendc/guide.md).
 * A candidate is one file: Ascend C kernels (#include "kernel_operator.h") and the host side
 *
 *   extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in,
 *                                         evk_tensor* out, int32_t n_out);
 *
 * which computes the tiling on the host from the shapes and launches the kernels with
 * ACLRT_LAUNCH_KERNEL(kernel)(blockDim, nullptr, args...).
 *   - `data` is a GM_ADDR: an address in the device's global memory. The host may pass it to
 *     kernels but never read or write through it (that stops the run: [DIRECT_GM_ACCESS]).
 *   - `in` holds the forward() inputs in get_inputs() order, then the parameters and buffers in
 *     state_dict() order; a non-tensor input is a 0-d tensor in global memory.
 *   - `out` is allocated with the reference shapes and dtypes and poisoned with NaN.
 *   - Shapes and strides are host arrays; tensors are dense, row-major, contiguous.
 *   - Return 0 on success. The library may export evk_forward and nothing else. */
#ifndef EVOKERNEL_KERNEL_ABI_H_
#define EVOKERNEL_KERNEL_ABI_H_
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { EVK_F32 = 0, EVK_F64 = 1, EVK_I32 = 2, EVK_I64 = 3, EVK_BOOL = 4, EVK_U8 = 5, EVK_F16 = 6 };

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

static inline int64_t evk_numel(const evk_tensor* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

#endif /* EVOKERNEL_KERNEL_ABI_H_ */
