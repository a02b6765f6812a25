#include "backends/cpu/cpu_backend.h"

#include <fmt/format.h>

#include <sstream>

#include "backends/cpu/source_rules.h"
#include "backends/cpu/symbol_rules.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> compile_argv(const fs::path& include_dir, const fs::path& src,
                                      const fs::path& lib) {
  return {"g++", "-std=c++17", "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC",
          "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-fdiagnostics-color=never",
          "-fmax-errors=8", "-I" + include_dir.string(), src.string(), "-o", lib.string()};
}

// The first few errors with their context lines, the temp folder removed from paths, capped.
std::string trim_compiler_output(std::string text, const fs::path& workdir) {
  std::string prefix = workdir.string() + "/";
  for (size_t p; (p = text.find(prefix)) != std::string::npos;) text.erase(p, prefix.size());
  std::istringstream in(text);
  std::string line, out;
  int errors = 0;
  bool keep = false;
  while (std::getline(in, line)) {
    bool is_error = line.find("error:") != std::string::npos;
    if (is_error && ++errors > 5) break;
    if (is_error || line.find("kernel.cpp:") != std::string::npos) keep = true;
    if (keep) out += line + "\n";
    if (out.size() > 3000) {
      out += "...\n";
      break;
    }
  }
  if (out.empty()) out = text.substr(0, 3000);
  return out;
}

std::string run_nm(const std::vector<std::string>& flags, const fs::path& lib) {
  std::vector<std::string> argv = {"nm"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(lib.string());
  ProcessOptions o;
  o.timeout_s = 30;
  ProcessResult r = run_process(argv, o);
  // An empty table is reported by nm as "no symbols" with a nonzero status: not an error here.
  if (!r.ok() && r.err.find("no symbols") == std::string::npos)
    throw Error("nm " + lib.string() + " failed: " + r.describe() + " " + r.err);
  return r.out;
}

}  // namespace

std::optional<std::string> CpuBackend::static_check(const std::string& source) const {
  return check_cpu_source(source);
}

std::string CpuBackend::compile_command() const {
  auto argv = compile_argv(knowledge_dir(), "kernel.cpp", "kernel.so");
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

CompileResult CpuBackend::compile(const std::string& source, const fs::path& workdir,
                                  double timeout_s) const {
  CompileResult res;
  fs::path src = workdir / source_filename();
  fs::path lib = workdir / "kernel.so";
  write_file_atomic(src, source);
  ProcessOptions o;
  o.cwd = workdir.string();
  o.timeout_s = timeout_s;
  o.address_space_bytes = kCompileAddressSpace;
  o.file_size_bytes = 256ull << 20;
  o.env["LC_ALL"] = "C";
  o.output_cap = 256 << 10;
  ProcessResult r = run_process(compile_argv(knowledge_dir(), src, lib), o);
  res.wall_s = r.wall_s;
  res.log = r.err + r.out;
  if (r.ok() && fs::exists(lib)) {
    res.ok = true;
    res.artifact = lib;
    return res;
  }
  if (r.timed_out)
    res.feedback = fmt::format("compilation timed out after {:.0f} s (template or constexpr "
                               "recursion too deep? keep compile-time work small)",
                               timeout_s);
  else if (r.term_signal)
    res.feedback = "the compiler was " + r.describe() +
                   " (it ran out of memory: template or constexpr recursion too deep?)";
  else
    res.feedback = trim_compiler_output(res.log, workdir);
  if (res.feedback.empty()) res.feedback = "the compiler " + r.describe();
  // cc1plus reports running out of its address-space limit as an internal error.
  if (res.log.find("out of memory") != std::string::npos ||
      res.log.find("virtual memory exhausted") != std::string::npos)
    res.feedback = "the compiler ran out of memory (limit 2 GiB): template or constexpr "
                   "recursion too deep?\n" + res.feedback;
  return res;
}

std::optional<std::string> CpuBackend::check_artifact(const fs::path& artifact) const {
  SymbolTables t;
  t.exported = run_nm({"-D", "--defined-only"}, artifact);
  t.imported = run_nm({"-D", "--undefined-only"}, artifact);
  t.defined = run_nm({"--defined-only"}, artifact);
  return check_cpu_symbols(t);
}

}  // namespace evk
