/* evokernel's kernel ABI: the one C interface between a candidate kernel library and the
 * harness that runs it, the same for every backend. A candidate includes it
 *   #include "evokernel/kernel_abi.h"
 * (an OpenCL candidate through "evokernel/opencl.h", an Ascend C one beside
 * "kernel_operator.h") and defines exactly one exported function:
 *
 *   extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in,
 *                                         evk_tensor* out, int32_t n_out);
 *
 * Contract the harness keeps:
 *   - `in` holds the forward() inputs in get_inputs() order, then the model's parameters and
 *     buffers in state_dict() order. A non-tensor input (an int or float) is a 0-d tensor.
 *   - `out` holds the outputs, already allocated with the reference shapes and dtypes; the
 *     kernel writes every element (they are poisoned with NaN before the call).
 *   - All tensors are dense, row-major and contiguous; `strides` are in elements; `shape` and
 *     `strides` are host memory.
 *   - Return 0 on success; any other value is reported to you as a runtime failure.
 *   - Inputs are read-only: writing to them is detected and rejected.
 *   - Candidates are compiled with -fvisibility=hidden, so only symbols marked EVK_EXPORT leave
 *     the library: it may export evk_forward and nothing else (helpers `static` or in an
 *     anonymous namespace).
 *
 * Where `data` lives, and what else each backend's harness expects:
 *   cpu      host memory. Build: g++ -std=c++17 -O3 -march=native -fopenmp -shared -fPIC
 *            -fvisibility=hidden. Threads: OpenMP only, its thread count fixed by the harness.
 *   opencl   host memory; every result must be in the host memory of `out` when evk_forward
 *            returns. The computation runs in OpenCL C kernels; the host code only wraps
 *            tensors in buffers, sets arguments and launches (knowledge/opencl/guide.md).
 *   cuda     a DEVICE pointer (cudaMalloc'd, 256-byte aligned): pass it to kernels, never
 *            dereference it on the host. Launch every kernel on the default stream and return;
 *            the harness synchronises the device after the call and times it with CUDA events.
 *            Check cudaGetLastError() after launches and return nonzero when one failed.
 *            Build: nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC,-fvisibility=hidden.
 *   ascendc  a GM_ADDR: an address in the emulated 910B's global memory. The host computes the
 *            tiling from the shapes and passes the address to kernels launched with
 *            ACLRT_LAUNCH_KERNEL(kernel)(blockDim, nullptr, args...); it never reads or writes
 *            through it (that stops the run: [DIRECT_GM_ACCESS]). knowledge/ascendc/guide.md.
 * Not allowed anywhere: files, sockets, processes, threads other than the backend's own
 * (OpenMP), timers, environment, inline assembly, system calls, vendor libraries (BLAS,
 * cuBLAS, cuDNN, CLBlast, libtorch); each backend's guide lists the rest.
 *
 * This file is abi/evokernel/kernel_abi.h; the build copies it into every knowledge bundle
 * (knowledge/<backend>/evokernel/), and the test abi_copies fails when a copy differs: edit it
 * here. */
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
