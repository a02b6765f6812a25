// The host g++ that builds the kernel libraries of the cpu, ascendc and opencl backends: its
// command line and the words of its failed-build feedback, in one place so that the three
// stay alike (the command line is shown in prompts and keys the verdict cache).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "backends/compile_support.h"

namespace evk {

// g++ -std=c++17 <optimise...> -shared -fPIC, hidden visibility, plain diagnostics, at most 8
// errors, -I<include_dir> (for evokernel/kernel_abi.h).
std::vector<std::string> gxx_library_flags(const std::filesystem::path& include_dir,
                                           const std::vector<std::string>& optimise);

// The flags, then `src -o lib`, then `libs` ("-lOpenCL").
std::vector<std::string> gxx_library_argv(const std::filesystem::path& include_dir,
                                          const std::vector<std::string>& optimise,
                                          const std::filesystem::path& src,
                                          const std::filesystem::path& lib,
                                          const std::vector<std::string>& libs = {});

// What a failed g++ build's feedback says beyond the shared texts.
CompilerWords gxx_words();

// Writes `source` to workdir/<source_filename> and builds workdir/kernel.so from it with
// gxx_library_argv under the compiler limits (compile_support.h: `timeout_s`, and
// `address_space` bytes). Never throws for the candidate: a failed build is the result's
// feedback.
CompileResult build_gxx_library(const std::string& source, const std::filesystem::path& workdir,
                                const std::string& source_filename,
                                const std::filesystem::path& include_dir,
                                const std::vector<std::string>& optimise, double timeout_s,
                                uint64_t address_space);

}  // namespace evk
