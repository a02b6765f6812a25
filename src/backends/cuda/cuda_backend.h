// The CUDA backend: CUDA C++17 compiled by nvcc into a shared library that exports
// evk_forward (knowledge/cuda/evokernel/kernel_abi.h); every tensor's data is a device pointer
// and kernels run on the default stream. Compiling and the static gates need only the CUDA
// toolkit; correctness and timing run in evk-runner-cuda, which needs an NVIDIA GPU. Where
// there is none, device_unavailable() says so and the verifier stops with `no_device`.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace evk {

class CudaBackend : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  std::string source_filename() const override { return "kernel.cu"; }
  std::string language() const override {
    return "CUDA C++17 (nvcc, runtime API, kernels on the default stream)";
  }
  std::optional<std::string> static_check(const std::string& source) const override;
  CompileResult compile(const std::string& source, const std::filesystem::path& workdir,
                        double timeout_s) const override;
  std::optional<std::string> check_artifact(const std::filesystem::path& artifact) const override;
  std::string compile_command() const override;
  RunnerSpec runner(const std::filesystem::path& workdir) const override;
  std::optional<std::string> device_unavailable() const override;
  std::string timing_note(int) const override { return ""; }  // timed on the GPU

  // nvcc on PATH, else /usr/local/cuda/bin/nvcc; nullopt when neither exists.
  static std::optional<std::filesystem::path> nvcc_path();
  // The GPU architecture candidates are built for: $EVK_CUDA_ARCH (e.g. sm_80, sm_90a),
  // default sm_90 (H100/H200). Throws UsageError for a malformed value.
  static std::string arch();
  // The compile command of `nvcc` without its source, output, -shared and ptxas options: what
  // the static rules preprocess the candidate with (backends/preprocessed.h).
  static std::vector<std::string> preprocess_argv(const std::string& nvcc);
  // The toolkit's include folders (for naming the headers a candidate includes), as nvcc
  // reports them (it may be a wrapper script elsewhere); cached per nvcc path.
  static std::vector<std::string> include_dirs(const std::filesystem::path& nvcc);
  // Where evk-runner-cuda is expected: beside evk-runner.
  static std::filesystem::path runner_executable();

  // nvcc runs cicc and ptxas under this address-space limit: a template bomb ends as a
  // compile failure. (The runner has none: the CUDA runtime reserves huge virtual ranges.)
  static constexpr uint64_t kCompileAddressSpace = 4ull << 30;
};

}  // namespace evk
