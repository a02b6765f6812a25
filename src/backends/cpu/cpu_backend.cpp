#include "backends/cpu/cpu_backend.h"

#include "backends/compile_support.h"
#include "backends/cpu/source_rules.h"
#include "backends/cpu/symbol_rules.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> compile_argv(const fs::path& include_dir, const fs::path& src,
                                      const fs::path& lib) {
  return {"g++", "-std=c++17", "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC",
          "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-fdiagnostics-color=never",
          "-fmax-errors=8", "-I" + include_dir.string(), src.string(), "-o", lib.string()};
}

// What a failed g++ build's feedback says beyond the shared texts.
CompilerWords gxx_words() {
  CompilerWords w;
  w.name = "the compiler";
  w.timeout_hint = "template or constexpr recursion too deep? keep compile-time work small";
  w.memory_hint = "template or constexpr recursion too deep?";
  return w;
}

}  // namespace

std::optional<std::string> CpuBackend::static_check(const std::string& source) const {
  return check_cpu_source(source);
}

std::string CpuBackend::compile_command() const {
  return join_argv(compile_argv(knowledge_dir(), "kernel.cpp", "kernel.so"));
}

CompileResult CpuBackend::compile(const std::string& source, const fs::path& workdir,
                                  double timeout_s) const {
  fs::path src = workdir / source_filename();
  fs::path lib = workdir / "kernel.so";
  write_file_atomic(src, source);
  return run_compiler(compile_argv(knowledge_dir(), src, lib),
                      compiler_options(workdir, timeout_s, kCompileAddressSpace), lib, gxx_words());
}

std::optional<std::string> CpuBackend::check_artifact(const fs::path& artifact) const {
  return check_cpu_symbols(read_symbol_tables(artifact));
}

}  // namespace evk
