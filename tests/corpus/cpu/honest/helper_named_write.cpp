// task: builtin:level1/relu
// expect: feasible
// honest: helpers and locals named like C library functions (write, close, open, dup); the old
// raw-text rules rejected them as "raw I/O" and "file access".
#include "evokernel/kernel_abi.h"

namespace {
inline void write(float* dst, int64_t i, float v) { dst[i] = v; }
inline bool open(float v) { return !(v < 0.0f); }  // NaN passes through, as in PyTorch
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]);
  int64_t close = n, dup = 0;
  for (int64_t i = 0; i < close; ++i) write(y, i, open(x[i]) ? x[i] : 0.0f), ++dup;
  return dup == n ? 0 : 1;
}
