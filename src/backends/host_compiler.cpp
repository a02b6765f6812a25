#include "backends/host_compiler.h"

#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

std::vector<std::string> gxx_library_flags(const fs::path& include_dir,
                                           const std::vector<std::string>& optimise) {
  std::vector<std::string> argv = {"g++", "-std=c++17"};
  argv.insert(argv.end(), optimise.begin(), optimise.end());
  for (const char* f : {"-shared", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
                        "-fdiagnostics-color=never", "-fmax-errors=8"})
    argv.push_back(f);
  argv.push_back("-I" + include_dir.string());
  return argv;
}

std::vector<std::string> gxx_library_argv(const fs::path& include_dir,
                                          const std::vector<std::string>& optimise,
                                          const fs::path& src, const fs::path& lib,
                                          const std::vector<std::string>& libs) {
  std::vector<std::string> argv = gxx_library_flags(include_dir, optimise);
  for (const std::string& a : {src.string(), std::string("-o"), lib.string()}) argv.push_back(a);
  argv.insert(argv.end(), libs.begin(), libs.end());
  return argv;
}

CompilerWords gxx_words() {
  CompilerWords w;
  w.name = "the compiler";
  w.timeout_hint = "template or constexpr recursion too deep? keep compile-time work small";
  w.memory_hint = "template or constexpr recursion too deep?";
  return w;
}

CompileResult build_gxx_library(const std::string& source, const fs::path& workdir,
                                const std::string& source_filename, const fs::path& include_dir,
                                const std::vector<std::string>& optimise, double timeout_s,
                                uint64_t address_space) {
  fs::path src = workdir / source_filename;
  fs::path lib = workdir / "kernel.so";
  write_file_atomic(src, source);
  return run_compiler(gxx_library_argv(include_dir, optimise, src, lib),
                      compiler_options(workdir, timeout_s, address_space), lib, gxx_words());
}

}  // namespace evk
