// The only device code of evk-runner-cuda: an FMA loop with enough independent chains per
// thread to hide the FMA latency, timed with CUDA events over a grid that fills the device.
#include <cuda_runtime_api.h>

#include <algorithm>

#include "device_peaks.h"

namespace evk::runner::cuda {
namespace {

constexpr int kChains = 8;
constexpr int kIters = 4096;

__global__ void fma_loop(float* out, float seed) {
  float a[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) a[c] = seed + static_cast<float>(threadIdx.x + c);
  const float m = 0.999f, k = 0.001f;
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) a[c] = fmaf(a[c], m, k);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += a[c];
  // Never true for these values, but the compiler cannot know: the loop must run.
  if (s == -1.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

}  // namespace

double fma_gflops() {
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    return 0;
  const int threads = 256, blocks = sms * 8;
  float* out = nullptr;
  if (cudaMalloc(&out, sizeof(float) * threads * blocks) != cudaSuccess) return 0;
  cudaEvent_t a = nullptr, b = nullptr;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  double best = 0;
  for (int rep = 0; rep < 4; ++rep) {  // the first one also warms the clocks up
    cudaEventRecord(a, 0);
    fma_loop<<<blocks, threads>>>(out, 1.0f);
    cudaEventRecord(b, 0);
    if (cudaEventSynchronize(b) != cudaSuccess) break;
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    double flops = 2.0 * kChains * kIters * static_cast<double>(threads) * blocks;
    if (ms > 0) best = std::max(best, flops / (ms * 1e-3) / 1e9);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaFree(out);
  cudaGetLastError();  // a failed measurement leaves gflops at 0, not a sticky error
  return best;
}

}  // namespace evk::runner::cuda
