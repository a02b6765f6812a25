#include "backends/cuda/cuda_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "backends/cuda/cuda_source_rules.h"
#include "backends/cuda/cuda_symbol_rules.h"
#include "backends/cuda/ptxas_report.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> compile_argv(const std::string& nvcc, const fs::path& include_dir,
                                      const fs::path& src, const fs::path& lib) {
  // -cudart shared: the candidate and the runner share one CUDA runtime (one context, one
  // default stream), and every runtime call stays an import the symbol rules can see.
  return {nvcc,
          "-O3",
          "-std=c++17",
          "-arch=" + CudaBackend::arch(),
          "-shared",
          "-Xcompiler",
          "-fPIC,-fvisibility=hidden,-fvisibility-inlines-hidden,-fdiagnostics-color=never",
          "-Xptxas",
          "-v",
          "-cudart",
          "shared",
          "-I" + include_dir.string(),
          src.string(),
          "-o",
          lib.string()};
}

// The first few errors with their context, ptxas's resource lines dropped (they are kept as
// notes), the temp folder removed from paths, capped.
std::string trim_nvcc_output(std::string text, const fs::path& workdir) {
  std::string prefix = workdir.string() + "/";
  for (size_t p; (p = text.find(prefix)) != std::string::npos;) text.erase(p, prefix.size());
  std::istringstream in(text);
  std::string line, out;
  int errors = 0;
  bool keep = false;
  while (std::getline(in, line)) {
    if (line.rfind("ptxas info", 0) == 0 || line.find("bytes stack frame") != std::string::npos)
      continue;
    bool is_error = line.find("error") != std::string::npos;
    if (is_error && ++errors > 5) break;
    if (is_error || line.find("kernel.cu") != std::string::npos) keep = true;
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
  if (!r.ok() && r.err.find("no symbols") == std::string::npos)
    throw Error("nm " + lib.string() + " failed: " + r.describe() + " " + r.err);
  return r.out;
}

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// Asks evk-runner-cuda whether this machine has a usable GPU.
std::optional<std::string> probe_device() {
  fs::path exe = CudaBackend::runner_executable();
  if (!fs::exists(exe))
    return fmt::format(
        "evk-runner-cuda was not built (no CUDA toolkit when {} was configured; "
        "install the toolkit, reconfigure and rebuild to run CUDA kernels)",
        exe.parent_path().string());
  ProcessOptions o;
  o.timeout_s = 120;  // a first driver initialisation can take many seconds
  ProcessResult r = run_process({exe.string(), "--probe"}, o);
  if (r.ok()) return std::nullopt;
  std::string why = r.out + r.err;
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (why.empty()) why = "evk-runner-cuda --probe " + r.describe();
  return why + "; correctness and timing run only on a machine with an NVIDIA GPU";
}

}  // namespace

std::optional<fs::path> CudaBackend::nvcc_path() {
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && executable(fs::path(d) / "nvcc")) return fs::path(d) / "nvcc";
  }
  if (executable("/usr/local/cuda/bin/nvcc")) return fs::path("/usr/local/cuda/bin/nvcc");
  return std::nullopt;
}

std::string CudaBackend::arch() {
  const char* env = std::getenv("EVK_CUDA_ARCH");
  std::string a = env && *env ? env : "sm_90";
  static const std::regex ok(R"(sm_[0-9]{2,3}[af]?)");
  if (!std::regex_match(a, ok))
    throw UsageError("EVK_CUDA_ARCH='" + a +
                     "' is not a GPU architecture like sm_80 or sm_90a: "
                     "set it to your GPU's (nvidia-smi --query-gpu=compute_cap) or unset it "
                     "for sm_90");
  return a;
}

fs::path CudaBackend::runner_executable() {
  return runner_path().parent_path() / "evk-runner-cuda";
}

std::optional<std::string> CudaBackend::static_check(const std::string& source) const {
  return check_cuda_source(source);
}

std::string CudaBackend::compile_command() const {
  auto argv = compile_argv("nvcc", knowledge_dir(), "kernel.cu", "kernel.so");
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

CompileResult CudaBackend::compile(const std::string& source, const fs::path& workdir,
                                   double timeout_s) const {
  CompileResult res;
  auto nvcc = nvcc_path();
  if (!nvcc) {
    // Not the candidate's fault, but compile() reports and never throws for a candidate.
    res.feedback =
        "nvcc was not found on PATH or at /usr/local/cuda/bin/nvcc: install the CUDA "
        "toolkit (or put its bin folder on PATH) to compile CUDA kernels";
    return res;
  }
  fs::path src = workdir / source_filename();
  fs::path lib = workdir / "kernel.so";
  write_file_atomic(src, source);
  ProcessOptions o;
  o.cwd = workdir.string();
  o.timeout_s = timeout_s;
  o.address_space_bytes = kCompileAddressSpace;
  o.file_size_bytes = 256ull << 20;
  o.env["LC_ALL"] = "C";
  o.env["TMPDIR"] = workdir.string();  // nvcc's intermediate files stay in the private folder
  o.output_cap = 256 << 10;
  ProcessResult r = run_process(compile_argv(nvcc->string(), knowledge_dir(), src, lib), o);
  res.wall_s = r.wall_s;
  res.log = r.err + r.out;
  res.notes = summarize_ptxas(res.log);
  if (r.ok() && fs::exists(lib)) {
    res.ok = true;
    res.artifact = lib;
    return res;
  }
  if (r.timed_out)
    res.feedback = fmt::format(
        "compilation timed out after {:.0f} s (template or constexpr "
        "recursion too deep, or huge unrolled loops? keep compile-time "
        "work small)",
        timeout_s);
  else if (r.term_signal)
    res.feedback = "the compiler was " + r.describe() +
                   " (it ran out of memory: template recursion or unrolling too deep?)";
  else
    res.feedback = trim_nvcc_output(res.log, workdir);
  if (res.feedback.empty()) res.feedback = "nvcc " + r.describe();
  if (res.log.find("out of memory") != std::string::npos ||
      res.log.find("virtual memory exhausted") != std::string::npos)
    res.feedback =
        "the compiler ran out of memory (limit 4 GiB): template recursion or "
        "unrolling too deep?\n" +
        res.feedback;
  return res;
}

std::optional<std::string> CudaBackend::check_artifact(const fs::path& artifact) const {
  SymbolTables t;
  t.exported = run_nm({"-D", "--defined-only"}, artifact);
  t.imported = run_nm({"-D", "--undefined-only"}, artifact);
  t.defined = run_nm({"--defined-only"}, artifact);
  return check_cuda_symbols(t);
}

RunnerSpec CudaBackend::runner(const fs::path&) const {
  RunnerSpec s;
  s.executable = "evk-runner-cuda";
  // Load every module when the context is made, before the seccomp filter goes on, and never
  // write a JIT cache (opening files is denied once the filter is on).
  s.env["CUDA_MODULE_LOADING"] = "EAGER";
  s.env["CUDA_CACHE_DISABLE"] = "1";
  s.limit_address_space = false;  // the CUDA runtime reserves far more than it uses
  return s;
}

std::optional<std::string> CudaBackend::device_unavailable() const {
  // Once per process: the answer does not change while we run, and a probe starts the driver.
  static const std::optional<std::string> answer = probe_device();
  return answer;
}

}  // namespace evk
