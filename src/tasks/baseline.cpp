#include "tasks/baseline.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "core/cpu_lease.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Where the system's library alternatives (libblas.so.3 -> OpenBLAS or the reference) live.
#if defined(__x86_64__)
constexpr const char* kMultiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr const char* kMultiarch = "aarch64-linux-gnu";
#else
constexpr const char* kMultiarch = "";
#endif

void add_stat(std::string& s, const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    s += p.string() + ":-;";
    return;
  }
  std::error_code ec;
  fs::path real = fs::canonical(p, ec);
  s += fmt::format("{}>{}:{}:{}.{};", p.string(), ec ? "?" : real.string(), st.st_size,
                   st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

// The site-packages folders under an installation prefix: a pip install or upgrade of torch
// adds and removes entries there, which changes the folder's mtime.
void add_site_packages(std::string& s, const fs::path& prefix) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(prefix / "lib", ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("python3", 0) != 0) continue;
    add_stat(s, e.path() / "site-packages");
    add_stat(s, e.path() / "dist-packages");
  }
}

// What decides which torch and which BLAS `python` loads, from stat calls only (microseconds).
std::string fingerprint(const std::string& python, int threads) {
  std::string s = fmt::format("threads={};", threads);
  add_stat(s, python);
  std::error_code ec;
  fs::path real = fs::canonical(python, ec);
  for (const fs::path& exe : {fs::path(python), ec ? fs::path(python) : real})
    add_site_packages(s, exe.parent_path().parent_path());
  add_site_packages(s, "/usr/local");
  if (const char* home = std::getenv("HOME")) add_site_packages(s, fs::path(home) / ".local");
  for (const char* f : {"/etc/ld.so.cache", "/var/lib/dpkg/status"}) add_stat(s, f);
  for (const std::string& dir :
       {fmt::format("/usr/lib/{}", kMultiarch), fmt::format("/lib/{}", kMultiarch),
        std::string("/usr/lib64"), std::string("/usr/lib"), std::string("/usr/local/lib")})
    for (const char* lib : {"libblas.so.3", "liblapack.so.3", "libopenblas.so.0"})
      add_stat(s, fs::path(dir) / lib);
  for (const char* v : {"LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "PYTHONHOME",
                        "ATEN_CPU_CAPABILITY", "OPENBLAS_CORETYPE", "OPENBLAS_VERBOSE"}) {
    const char* val = std::getenv(v);
    s += fmt::format("{}={};", v, val ? val : "(unset)");
  }
  return short_hash(s, 16);
}

fs::path cache_file(Workspace& ws, const std::string& fp) {
  return ws.cache_dir() / "baseline" / (fp + ".json");
}

EagerBaseline probe(const OracleOptions& opt) {
  ProcessOptions po;
  po.timeout_s = 120;
  po.env = oracle_thread_env(opt.threads);
  CpuLease lease(opt.threads);  // as a reference is timed: pinned, on CPUs of its own
  po.cpus = lease.cpus();
  ProcessResult r = run_process({opt.python, (data_root() / "oracle" / "evk_oracle.py").string(),
                                 "baseline", "--threads", std::to_string(opt.threads)},
                                po);
  if (!r.ok())
    throw Error(
        fmt::format("probing the eager baseline with {} failed ({}): {}; check "
                    "oracle.python and run `evokernel doctor`",
                    opt.python, r.describe(), r.err.substr(0, 400)));
  try {
    return EagerBaseline::from_json(json::parse(r.out.substr(0, r.out.find('\n'))));
  } catch (const json::exception& e) {
    throw Error(fmt::format("the eager baseline probe printed no JSON line ({}): {}", e.what(),
                            r.out.substr(0, 200)));
  }
}

std::mutex& memo_mu() {
  static std::mutex m;
  return m;
}
std::map<std::string, EagerBaseline>& memo() {
  static std::map<std::string, EagerBaseline> m;
  return m;
}

}  // namespace

std::string EagerBaseline::key() const {
  return short_hash(json({python, torch_version, blas_library, blas_name, cpu_capability}).dump(),
                    12);
}

std::string EagerBaseline::describe() const {
  std::string s = fmt::format("PyTorch {} eager, {}, {} thread{}, ATen {}", torch_version,
                              blas_name, threads, threads == 1 ? "" : "s", cpu_capability);
  if (blas_threads > 0 && blas_threads != threads)
    s += fmt::format(" (the BLAS runs {} threads)", blas_threads);
  if (python != "/usr/bin/python3") s += ", python " + python;
  return s;
}

json EagerBaseline::to_json() const {
  return {{"python", python},
          {"torch_version", torch_version},
          {"blas_library", blas_library},
          {"blas_name", blas_name},
          {"blas_threads", blas_threads},
          {"threads", threads},
          {"cpu_capability", cpu_capability},
          {"cpus", cpus},
          {"gemm", {{"n", gemm_n}, {"gflops", gemm_gflops}}}};
}

EagerBaseline EagerBaseline::from_json(const json& j) {
  EagerBaseline b;
  try {
    b.python = j.at("python");
    b.torch_version = j.at("torch_version");
    b.blas_library = j.at("blas_library");
    b.blas_name = j.at("blas_name");
    b.blas_threads = j.value("blas_threads", 0);
    b.threads = j.at("threads");
    b.cpu_capability = j.at("cpu_capability");
    b.cpus = j.value("cpus", std::vector<int>{});
    if (j.contains("gemm")) {
      const json& g = j["gemm"];
      b.gemm_n = g.value("n", 0);
      // The probe reports both rates; a stored baseline has the one kept.
      b.gemm_gflops = g.contains("gflops")
                          ? g["gflops"].get<double>()
                          : std::max(g.value("gflops_wall", 0.0), g.value("gflops_cpu", 0.0));
    }
  } catch (const json::exception& e) {
    throw Error(std::string("an eager baseline record is malformed: ") + e.what());
  }
  return b;
}

EagerBaseline eager_baseline(Workspace& ws, const OracleOptions& opt, bool fresh) {
  const std::string fp = fingerprint(opt.python, opt.threads);
  std::lock_guard<std::mutex> g(memo_mu());  // one probe at a time in this process
  if (!fresh) {
    if (auto it = memo().find(fp); it != memo().end()) return it->second;
    fs::path f = cache_file(ws, fp);
    if (fs::exists(f)) {
      try {
        EagerBaseline b = EagerBaseline::from_json(json::parse(read_file(f)));
        memo()[fp] = b;
        return b;
      } catch (const std::exception&) {
        // A damaged record is probed again below, and replaced.
      }
    }
  }
  EagerBaseline b = probe(opt);
  fs::create_directories(cache_file(ws, fp).parent_path());
  write_file_atomic(cache_file(ws, fp), b.to_json().dump(1) + "\n");
  memo()[fp] = b;
  return b;
}

void forget_eager_baseline(Workspace& ws, const OracleOptions& opt) {
  const std::string fp = fingerprint(opt.python, opt.threads);
  std::lock_guard<std::mutex> g(memo_mu());
  memo().erase(fp);
  std::error_code ec;
  fs::remove(cache_file(ws, fp), ec);
}

BaselineHealth baseline_health(const EagerBaseline& b, double fma_gflops) {
  BaselineHealth h;
  h.fraction = fma_gflops > 0 ? b.gemm_gflops / fma_gflops : 0;
  h.ok = fma_gflops <= 0 || h.fraction >= kMinGemmFraction;
  if (h.ok) return h;
  h.problem = fmt::format(
      "PyTorch eager runs a {0}x{0}x{0} float32 GEMM at {1:.1f} GFLOP/s, {2:.1f}% of this "
      "machine's FMA peak ({3:.1f} GFLOP/s at {4} thread{5}; a healthy BLAS reaches {6:.0f}% "
      "or more) on {7}, {8}: every speed-up over eager on a matmul would be inflated; run "
      "scripts/setup (apt-get install libopenblas0-pthread) or point oracle.python at a "
      "PyTorch on an optimised BLAS, or pass --allow-slow-baseline (the run is then marked)",
      b.gemm_n, b.gemm_gflops, 100 * h.fraction, fma_gflops, b.threads, b.threads == 1 ? "" : "s",
      100 * kMinGemmFraction, b.blas_name, b.blas_library);
  return h;
}

json baseline_record(const EagerBaseline& b, const BaselineHealth& h, double fma_gflops,
                     bool modeled, bool allowed_slow) {
  json j = b.to_json();
  j["key"] = b.key();
  j["fma_gflops"] = fma_gflops;
  j["gemm_fraction"] = h.fraction;
  j["slow"] = !h.ok;
  j["allowed_slow"] = !h.ok && allowed_slow;
  j["modeled"] = modeled;
  return j;
}

bool baseline_slow(const json& record) {
  return record.is_object() && record.value("slow", false);
}

std::string baseline_line(const json& record) {
  if (!record.is_object()) return "eager baseline: not recorded (a run from before it was kept)";
  EagerBaseline b;
  try {
    b = EagerBaseline::from_json(record);
  } catch (const Error& e) {
    return std::string("eager baseline: unreadable record (") + e.what() + ")";
  }
  std::string s = "eager baseline: ";
  if (baseline_slow(record)) s += "SLOW (let through by --allow-slow-baseline): ";
  s += b.describe();
  double fraction = record.value("gemm_fraction", 0.0);
  if (b.gemm_gflops > 0)
    s += fraction > 0 ? fmt::format("; GEMM {:.1f} GFLOP/s, {:.0f}% of the FMA peak", b.gemm_gflops,
                                    100 * fraction)
                      : fmt::format("; GEMM {:.1f} GFLOP/s", b.gemm_gflops);
  if (baseline_slow(record)) s += ": speed-ups over eager on matmuls are inflated";
  if (record.value("modeled", false)) s += " (verdicts compare with the backend's modeled eager)";
  return s;
}

}  // namespace evk
