// The opencl backend: one C++ file holding the OpenCL C program in a raw string
// R"evk_cl( ... )evk_cl" plus host code with the cpu ABI (evk_forward on host tensors),
// compiled by g++ against libOpenCL; the program runs on the machine's OpenCL device (PoCL's
// pthread CPU device here). knowledge/opencl/guide.md is the contract for candidates.
//
// Sandbox facts this backend is built around (PoCL 3.1, measured with strace):
//  - clBuildProgram writes temporary files into POCL_CACHE_DIR and reads PoCL's headers even
//    when the program is cached, and the first launch of a kernel links its work-group
//    function by running /usr/bin/ld, then dlopens it from the cache.
//  - So the compile gate (evk-clbuild, unsandboxed child with limits, like g++) builds the
//    program and every kernel's generic work-group function into the candidate's private
//    cache (POCL_WORK_GROUP_SPECIALIZATION=0: one function for every local size); in the
//    runner, fork/exec stay forbidden, and file access is confined with Landlock to reading
//    /usr/lib and /usr/share/pocl and writing that cache folder, instead of every open being
//    denied. A launch that would need the linker still ends at the seccomp filter.
#pragma once
#include "backends/backend.h"

namespace evk {

class OpenClBackend : public Backend {
 public:
  std::string name() const override { return "opencl"; }
  std::string source_filename() const override { return "kernel.cpp"; }
  std::string language() const override {
    return "OpenCL C 1.2 kernels in a C++17 host file (one R\"evk_cl( ... )evk_cl\" program "
           "string)";
  }
  std::optional<std::string> static_check(const std::string& source) const override;
  CompileResult compile(const std::string& source, const std::filesystem::path& workdir,
                        double timeout_s) const override;
  std::optional<std::string> check_artifact(const std::filesystem::path& artifact) const override;
  std::string compile_command() const override;
  RunnerSpec runner(const std::filesystem::path& workdir) const override;
  std::optional<std::string> device_unavailable() const override;
  // The host compile command without its source, output, -shared and -lOpenCL: what the
  // static rules preprocess the candidate with (backends/preprocessed.h).
  static std::vector<std::string> preprocess_argv();

  // g++ and the OpenCL C compiler (LLVM inside PoCL) run under this address-space limit.
  static constexpr uint64_t kCompileAddressSpace = 4ull << 30;
  // PoCL with LLVM mapped reserves about 1 GiB of address space before any kernel runs.
  static constexpr uint64_t kRunnerAddressSpaceMb = 2048;
};

}  // namespace evk
