#include "backends/opencl/opencl_backend.h"

#include <fmt/format.h>

#include <chrono>
#include <mutex>
#include <regex>

#include "backends/compile_support.h"
#include "backends/elf_image.h"
#include "backends/symbol_tables.h"
#include "backends/import_rules.h"
#include "backends/load_time_rules.h"
#include "backends/opencl/opencl_source_rules.h"
#include "backends/opencl/opencl_symbol_rules.h"
#include "core/error.h"
#include "core/paths.h"
#include "backends/host_compiler.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> host_argv(const fs::path& include_dir, const fs::path& src,
                                   const fs::path& lib) {
  return gxx_library_argv(include_dir, {"-O2"}, src, lib, {"-lOpenCL"});
}

fs::path clbuild_path() {
  return runner_path().parent_path() / "evk-clbuild";
}

// PoCL names the program "<path>/tempfile_XXXX.cl" (or <source>) in its build log; rewrite
// "...:L:C:" to "kernel.cpp:(first_line+L-1):C:" so the lines are those of the candidate.
std::string map_build_log(const std::string& log, int first_line) {
  static const std::regex loc(R"((\S*(?:\.cl|<source>|<stdin>|input)):(\d+):(\d+):)");
  std::string out;
  auto it = std::sregex_iterator(log.begin(), log.end(), loc);
  size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out += log.substr(last, static_cast<size_t>(m.position(0)) - last);
    out += fmt::format("kernel.cpp:{}:{}:", first_line + std::stoi(m.str(2)) - 1, m.str(3));
    last = static_cast<size_t>(m.position(0) + m.length(0));
  }
  out += log.substr(last);
  return out;
}

std::map<std::string, std::string> pocl_env(const fs::path& cache) {
  return {{"POCL_CACHE_DIR", cache.string()}, {"POCL_WORK_GROUP_SPECIALIZATION", "0"}};
}

}  // namespace

std::optional<std::string> OpenClBackend::static_check(const std::string& source) const {
  return check_opencl_source(source);
}

std::vector<std::string> OpenClBackend::preprocess_argv() {
  std::vector<std::string> argv;
  for (auto& a : host_argv(data_root() / "knowledge" / "opencl", "kernel.cpp", "kernel.so")) {
    if (a == "kernel.cpp" || a == "-o") continue;
    if (a == "kernel.so") continue;
    if (a != "-shared" && a != "-lOpenCL") argv.push_back(a);
  }
  return argv;
}

std::string OpenClBackend::compile_command() const {
  return join_argv(host_argv(knowledge_dir(), "kernel.cpp", "kernel.so")) +
         " && evk-clbuild kernel.cl  (the R\"evk_cl( string, built by PoCL with "
         "clBuildProgram(\"-cl-std=CL1.2\"))";
}

CompileResult OpenClBackend::compile(const std::string& source, const fs::path& workdir,
                                     double timeout_s) const {
  CompileResult res;
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::string why;
  auto split = split_opencl_source(source, &why);
  if (!split) {
    res.feedback = why;
    return res;
  }
  fs::path src = workdir / source_filename();
  fs::path lib = workdir / "kernel.so";
  write_file_atomic(src, source);
  ProcessOptions o = compiler_options(workdir, timeout_s, kCompileAddressSpace);
  ProcessResult r = run_process(host_argv(knowledge_dir(), src, lib), o);
  res.log = r.err + r.out;
  if (!r.ok() || !fs::exists(lib)) {
    res.wall_s = elapsed();
    if (r.timed_out)
      res.feedback = fmt::format("compiling the host code timed out after {:.0f} s", timeout_s);
    else if (r.term_signal)
      res.feedback = "the host compiler was " + r.describe() + " (out of memory?)";
    else
      res.feedback = "the host code failed to compile:\n" + trim_compiler_output(res.log, workdir);
    return res;
  }

  // The OpenCL C program, built by PoCL into the candidate's private cache.
  fs::path cl = workdir / "kernel.cl";
  fs::path cache = workdir / "pocl-cache";
  write_file_atomic(cl, split->kernel);
  fs::create_directories(cache);
  ProcessOptions b = o;
  for (const auto& [k, v] : pocl_env(cache)) b.env[k] = v;
  b.timeout_s = std::max(1.0, timeout_s - elapsed());
  ProcessResult br = run_process({clbuild_path().string(), cl.string()}, b);
  res.wall_s = elapsed();
  res.log += br.out + br.err;
  if (br.exit_code == 127 || br.exit_code == 3)
    throw Error("the OpenCL build helper " + clbuild_path().string() + " could not run (" +
                br.describe() + " " + br.err.substr(0, 300) + "): build it (make build)");
  if (br.ok() || (!br.timed_out && br.term_signal == 0 && br.exit_code == 2)) {
    // Exit 2: no OpenCL device on this machine; the verifier stops at no_device after the
    // static and compile gates, so the host build is what this gate can judge.
    res.ok = true;
    res.artifact = lib;
    return res;
  }
  if (br.timed_out)
    res.feedback = fmt::format(
        "building the OpenCL program timed out after {:.0f} s (huge unrolled "
        "loops or macros?)",
        timeout_s);
  else if (br.term_signal)
    res.feedback =
        "the OpenCL C compiler was " + br.describe() + " (it ran out of memory: limit 4 GiB)";
  else
    res.feedback = "the OpenCL program (the R\"evk_cl( string) failed to build:\n" +
                   trim_compiler_output(map_build_log(br.out, split->first_line), workdir);
  return res;
}

std::optional<std::string> OpenClBackend::check_artifact(const fs::path& artifact) const {
  ElfImage img = read_elf_image(artifact);
  if (auto bad = check_opencl_symbols(nm_tables(img))) return bad;
  if (auto bad = check_kernel_imports(img, {"libOpenCL.so.1"})) return bad;
  static std::vector<LoadTimeCode> baselines;
  static std::once_flag once;
  fs::path include_dir = knowledge_dir();
  std::call_once(once, [&] {
    baselines = build_load_time_baselines(
        [&](const fs::path& src, const fs::path& lib) { return host_argv(include_dir, src, lib); },
        {"#include \"evokernel/opencl.h\"\n"});
  });
  return check_load_time(img, baselines);
}

RunnerSpec OpenClBackend::runner(const fs::path& workdir) const {
  RunnerSpec s = Backend::runner(workdir);
  fs::path cache = workdir / "pocl-cache";
  s.env = pocl_env(cache);
  s.env["EVK_RUNNER_OPENCL"] = "1";
  // What PoCL reads while kernels run: its headers and kernel library, and the cache.
  std::string read = "/usr/share/pocl:/usr/lib";
  for (const char* d : {"/lib", "/lib64", "/usr/lib64"})
    if (fs::is_directory(d) && !fs::is_symlink(d)) read += std::string(":") + d;
  s.env["EVK_RUNNER_FS_READ"] = read;
  s.env["EVK_RUNNER_FS_WRITE"] = cache.string();
  s.min_address_space_mb = kRunnerAddressSpaceMb;
  return s;
}

std::optional<std::string> OpenClBackend::device_unavailable() const {
  static std::once_flag once;
  static std::optional<std::string> why;
  std::call_once(once, [] {
    ProcessOptions o;
    o.timeout_s = 60;
    o.address_space_bytes = kCompileAddressSpace;
    ProcessResult r = run_process({clbuild_path().string(), "--probe"}, o);
    if (r.ok()) return;
    std::string msg = r.out.empty() ? r.describe() + " " + r.err.substr(0, 300) : r.out;
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    why = r.exit_code == 127 ? "the OpenCL helper " + clbuild_path().string() +
                                   " is missing: build it (make build)"
                             : msg;
  });
  return why;
}

}  // namespace evk
