#include "backends/cpu/cpu_backend.h"

#include <mutex>

#include "backends/compile_support.h"
#include "backends/cpu/source_rules.h"
#include "backends/cpu/symbol_rules.h"
#include "backends/elf_image.h"
#include "backends/symbol_tables.h"
#include "backends/import_rules.h"
#include "backends/load_time_rules.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> compile_flags(const fs::path& include_dir) {
  return {"g++", "-std=c++17", "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC",
          "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-fdiagnostics-color=never",
          "-fmax-errors=8", "-I" + include_dir.string()};
}

std::vector<std::string> compile_argv(const fs::path& include_dir, const fs::path& src,
                                      const fs::path& lib) {
  std::vector<std::string> argv = compile_flags(include_dir);
  for (const std::string& a : {src.string(), std::string("-o"), lib.string()}) argv.push_back(a);
  return argv;
}

// What a failed g++ build's feedback says beyond the shared texts.
CompilerWords gxx_words() {
  CompilerWords w;
  w.name = "the compiler";
  w.timeout_hint = "template or constexpr recursion too deep? keep compile-time work small";
  w.memory_hint = "template or constexpr recursion too deep?";
  return w;
}

// The toolchain's own load-time code (frame_dummy; <iostream>'s initialiser): libraries built
// by the compile command from sources holding nothing of a candidate's, built once.
const std::vector<LoadTimeCode>& load_time_baselines(const fs::path& include_dir) {
  static std::vector<LoadTimeCode> baselines;
  static std::once_flag once;
  std::call_once(once, [&] {
    baselines = build_load_time_baselines(
        [&](const fs::path& src, const fs::path& lib) { return compile_argv(include_dir, src, lib); },
        {"#include \"evokernel/kernel_abi.h\"\n", "#include <iostream>\n"});
  });
  return baselines;
}

}  // namespace

std::optional<std::string> CpuBackend::static_check(const std::string& source) const {
  return check_cpu_source(source);
}

std::vector<std::string> CpuBackend::preprocess_argv() {
  std::vector<std::string> argv;
  for (auto& a : compile_flags(data_root() / "knowledge" / "cpu"))
    if (a != "-shared") argv.push_back(a);
  return argv;
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
  ElfImage img = read_elf_image(artifact);
  if (auto bad = check_cpu_symbols(nm_tables(img))) return bad;
  if (auto bad = check_kernel_imports(img)) return bad;
  return check_load_time(img, load_time_baselines(knowledge_dir()));
}

}  // namespace evk
