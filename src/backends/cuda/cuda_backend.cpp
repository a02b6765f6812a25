#include "backends/cuda/cuda_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "backends/compile_support.h"
#include "backends/cuda/cuda_source_rules.h"
#include "backends/cuda/cuda_symbol_rules.h"
#include "backends/cuda/ptxas_report.h"
#include "backends/registry.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> cuda_compile_argv(const std::string& nvcc, const fs::path& include_dir,
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

// What a failed nvcc build's feedback says beyond the shared texts; ptxas's resource lines
// are dropped from it (compile() keeps them as notes).
CompilerWords nvcc_words() {
  CompilerWords w;
  w.name = "nvcc";
  w.timeout_hint =
      "template or constexpr recursion too deep, or huge unrolled loops? keep compile-time "
      "work small";
  w.memory_hint = "template recursion or unrolling too deep?";
  w.trim.error_marker = "error";
  w.trim.source_marker = "kernel.cu";
  w.trim.drop_ptxas_info = true;
  return w;
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
  // Exit 1 is the probe's own answer (no device); anything else is a runner that cannot start.
  if (r.exit_code != 1 || r.term_signal != 0)
    why = "evk-runner-cuda could not start (" + r.describe() + "): " + why +
          " (run `evokernel doctor` to check the driver and the runner)";
  return why + "; correctness and timing run only on a machine with an NVIDIA GPU";
}

}  // namespace

std::vector<std::string> CudaBackend::preprocess_argv(const std::string& nvcc) {
  std::vector<std::string> argv;
  auto full = cuda_compile_argv(nvcc, data_root() / "knowledge" / "cuda", "kernel.cu", "kernel.so");
  for (size_t i = 0; i < full.size(); ++i) {
    const std::string& a = full[i];
    if (a == "-Xptxas" || a == "-o") {
      ++i;  // and its value
      continue;
    }
    if (a == "-shared" || a == "kernel.cu") continue;
    argv.push_back(a);
  }
  return argv;
}

// nvcc on PATH may be a wrapper script (`exec /usr/local/cuda-13.0/bin/nvcc "$@"`), so the
// folders are asked of nvcc itself: its dry run prints the -I and -isystem folders it passes
// on. The folders beside the path given are the fallback when the dry run says nothing.
std::vector<std::string> CudaBackend::include_dirs(const fs::path& nvcc) {
  static std::mutex mu;
  static std::map<std::string, std::vector<std::string>> cache;
  std::lock_guard lock(mu);
  auto& dirs = cache[nvcc.string()];
  if (!dirs.empty()) return dirs;
  ProcessOptions o;
  o.timeout_s = 60;
  ProcessResult r = run_process({nvcc.string(), "--dryrun", "-E", "-x", "cu", "/dev/null"}, o);
  static const std::regex flag(R"re((?:-I|"-isystem" ")([^" ]+))re");
  std::istringstream text(r.out + r.err);
  for (std::string line; std::getline(text, line);) {
    if (line.find("INCLUDES=") == std::string::npos) continue;  // `#$ INCLUDES="-I..."`
    for (std::sregex_iterator it(line.begin(), line.end(), flag), end; it != end; ++it)
      dirs.push_back(fs::path((*it)[1].str()).lexically_normal().string());
  }
  fs::path root = nvcc.parent_path().parent_path();
  fs::path target = root / "targets" / "x86_64-linux" / "include";
  for (const fs::path& d : {target, target / "cccl", root / "include", root / "include" / "cccl"})
    dirs.push_back(d.lexically_normal().string());
  return dirs;
}

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
  return runner_path().parent_path() / backend_row("cuda").runner;
}

std::optional<std::string> CudaBackend::static_check(const std::string& source) const {
  return check_cuda_source(source);
}

std::string CudaBackend::compile_command() const {
  return join_argv(cuda_compile_argv("nvcc", knowledge_dir(), "kernel.cu", "kernel.so"));
}

CompileResult CudaBackend::compile(const std::string& source, const fs::path& workdir,
                                   double timeout_s) const {
  auto nvcc = nvcc_path();
  if (!nvcc) {
    // Not the candidate's fault, but compile() reports and never throws for a candidate.
    CompileResult res;
    res.feedback =
        "nvcc was not found on PATH or at /usr/local/cuda/bin/nvcc: install the CUDA "
        "toolkit (or put its bin folder on PATH) to compile CUDA kernels";
    return res;
  }
  fs::path src = workdir / source_filename();
  fs::path lib = workdir / "kernel.so";
  write_file_atomic(src, source);
  ProcessOptions o = compiler_options(workdir, timeout_s, kCompileAddressSpace);
  o.env["TMPDIR"] = workdir.string();  // nvcc's intermediate files stay in the private folder
  CompileResult res =
      run_compiler(cuda_compile_argv(nvcc->string(), knowledge_dir(), src, lib), o, lib, nvcc_words());
  res.notes = summarize_ptxas(res.log);
  return res;
}

std::optional<std::string> CudaBackend::check_artifact(const fs::path& artifact) const {
  return check_cuda_symbols(read_symbol_tables(artifact));
}

RunnerSpec CudaBackend::runner(const fs::path& workdir) const {
  RunnerSpec s = Backend::runner(workdir);
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
