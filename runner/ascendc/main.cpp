// evk-runner-ascendc: the sandboxed harness that loads one Ascend C candidate and runs it on
// the emulated 910B AI Core (emulator.h).
//   evk-runner-ascendc            read a job (JSON, stdin), report JSON lines on stdout
//   evk-runner-ascendc --probe    print what is emulated (exit 0)
// The verdict channel is the real stdout, kept on a private descriptor; fd 1 is pointed at
// stderr before the candidate is loaded, so a kernel that prints cannot corrupt the report.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "../harness_base.h"
#include "ascendc_harness.h"
#include "backends/ascendc/npu_constants.h"

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "--probe") {
      std::printf(
          "emulated Ascend 910B: %u vector + %u cube cores at %.2f GHz, %u KiB UB per core, "
          "%.0f GB/s HBM\n",
          evk::npu::kVectorCores, evk::npu::kCubeCores, evk::npu::kClockGHz,
          evk::npu::kUbBytes / 1024, evk::npu::kHbmGBps);
      return 0;
    }
    if (!mode.empty()) {
      std::fprintf(stderr,
                   "usage: evk-runner-ascendc [--probe] (a job is read as JSON on stdin)\n");
      return 2;
    }
    return evk::runner::serve_job("evk-runner-ascendc", evk::runner::ascendc::run_ascendc_harness);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evk-runner-ascendc: error: %s\n", e.what());
    return 3;
  }
}
