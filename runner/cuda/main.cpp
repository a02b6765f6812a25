// evk-runner-cuda: the sandboxed harness that loads and runs one CUDA candidate.
//   evk-runner-cuda                  read a job (JSON, stdin), report JSON lines on stdout
//   evk-runner-cuda --probe          print the CUDA devices (exit 0), or why there is none (exit 1)
//   evk-runner-cuda --measure-peaks  print {"gbps":..,"gflops":..,"l2_bytes":..,"name":..}
// The verdict channel is the real stdout, kept on a private descriptor; fd 1 is pointed at
// stderr before the candidate is loaded, so a kernel that prints cannot corrupt the report.
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "../harness_base.h"
#include "cuda_harness.h"
#include "device.h"
#include "device_peaks.h"

namespace {

int probe() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    std::printf("no CUDA device: cudaGetDeviceCount failed (%s)\n",
                evk::runner::cuda::describe(e).c_str());
    return 1;
  }
  if (n == 0) {
    std::printf("no CUDA device: cudaGetDeviceCount found 0 devices\n");
    return 1;
  }
  std::printf("%d CUDA device(s)\n", n);
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    std::printf("device %d: %s, sm_%d%d, %.1f GiB, L2 %d KiB, %d SMs\n", d, p.name, p.major,
                p.minor, static_cast<double>(p.totalGlobalMem) / (1 << 30), p.l2CacheSize >> 10,
                p.multiProcessorCount);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "--probe") return probe();
    if (mode == "--measure-peaks") {
      std::cout << evk::runner::cuda::measure_device_peaks().dump() << std::endl;
      return 0;
    }
    if (!mode.empty()) {
      std::fprintf(stderr,
                   "usage: evk-runner-cuda [--probe | --measure-peaks] (a job is read "
                   "as JSON on stdin)\n");
      return 2;
    }
    return evk::runner::serve_job("evk-runner-cuda", evk::runner::cuda::run_cuda_harness);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evk-runner-cuda: error: %s\n", e.what());
    return 3;
  }
}
