// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// gates: no-static-source
// feedback: pthread_create
// cheat: returns at once and leaves a host thread running that launches the kernel later.
#include "evokernel/kernel_abi.h"
#include <cstdint>

extern "C" int pthread_create(unsigned long* t, const void* attr, void* (*fn)(void*), void* arg);
extern "C" int pthread_detach(unsigned long t);

namespace {
__global__ void relu(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
struct Job {
  const float* x;
  float* y;
  int64_t n;
};
Job job;
void* later(void*) {
  relu<<<static_cast<unsigned>((job.n + 255) / 256), 256>>>(job.x, job.y, job.n);
  return nullptr;
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  job = {static_cast<const float*>(in[0].data), static_cast<float*>(out[0].data), evk_numel(&in[0])};
  unsigned long t = 0;
  pthread_create(&t, nullptr, later, nullptr);
  pthread_detach(t);
  return 0;
}
