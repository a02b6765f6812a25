#include "backends/cpu/cpu_backend.h"

#include <mutex>

#include "backends/compile_support.h"
#include "backends/host_compiler.h"
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

// The CPU's kernels are built for this machine's vector units, with OpenMP.
const std::vector<std::string> kOptimise = {"-O3", "-march=native", "-fopenmp"};

std::vector<std::string> compile_flags(const fs::path& include_dir) {
  return gxx_library_flags(include_dir, kOptimise);
}

std::vector<std::string> compile_argv(const fs::path& include_dir, const fs::path& src,
                                      const fs::path& lib) {
  return gxx_library_argv(include_dir, kOptimise, src, lib);
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
  return build_gxx_library(source, workdir, source_filename(), knowledge_dir(), kOptimise, timeout_s,
                           kCompileAddressSpace);
}

std::optional<std::string> CpuBackend::check_artifact(const fs::path& artifact) const {
  ElfImage img = read_elf_image(artifact);
  if (auto bad = check_cpu_symbols(nm_tables(img))) return bad;
  if (auto bad = check_kernel_imports(img)) return bad;
  return check_load_time(img, load_time_baselines(knowledge_dir()));
}

}  // namespace evk
