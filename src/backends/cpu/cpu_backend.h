// The CPU backend: C++17 + OpenMP (+ x86 intrinsics) compiled by g++ into a shared library
// that exports evk_forward (abi/evokernel/kernel_abi.h).
#pragma once
#include "backends/backend.h"

namespace evk {

class CpuBackend : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string source_filename() const override { return "kernel.cpp"; }
  std::string language() const override { return "C++17 with OpenMP and x86 SIMD intrinsics"; }
  std::optional<std::string> static_check(const std::string& source) const override;
  CompileResult compile(const std::string& source, const std::filesystem::path& workdir,
                        double timeout_s) const override;
  std::optional<std::string> check_artifact(const std::filesystem::path& artifact) const override;
  std::string compile_command() const override;
  // The compile command without its source, output and -shared: what the static source rules
  // preprocess the candidate with (backends/preprocessed.h).
  static std::vector<std::string> preprocess_argv();

  // The compiler's address-space limit: a template bomb ends as a compile failure.
  static constexpr uint64_t kCompileAddressSpace = 2ull << 30;
};

}  // namespace evk
