#include "verify/runner_client.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

#include "core/cpu_lease.h"
#include "core/error.h"
#include "core/jail.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_unsafe{false};

bool under(const std::string& path, const std::string& tree) {
  return path == tree || path.rfind(tree + "/", 0) == 0;
}

bool in_system_tree(const std::string& p) {
  for (const char* t : {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin"})
    if (under(p, t)) return true;
  return false;
}

std::vector<std::string> split_paths(const std::string& v) {
  std::vector<std::string> out;
  std::istringstream in(v);
  for (std::string p; std::getline(in, p, ':');)
    if (!p.empty()) out.push_back(p);
  return out;
}

// Gives the jail's identity the candidate's folder, so that the runner may read its library
// and write its outputs there (the folder sits in a private 0700 folder of ours: nobody else
// reaches it). Symbolic links are changed, never followed.
void hand_to_jail(const fs::path& dir) {
  uid_t u = jail_outer_uid();
  gid_t g = jail_outer_gid();
  if (u == ::geteuid()) return;
  auto give = [&](const fs::path& p) {
    if (::lchown(p.c_str(), u, g) != 0) throw_errno("cannot hand " + p.string() + " to the jail");
  };
  give(dir);
  for (const auto& e : fs::recursive_directory_iterator(dir)) give(e.path());
}

JailSpec jail_for(const RunnerLimits& lim, const fs::path& exe,
                  const std::string& workdir) {
  JailSpec s;
  s.binds.push_back({exe.string(), false});
  s.binds.push_back({fs::weakly_canonical(workdir).string(), false});
  std::string wd = s.binds.back().path;
  auto env = [&](const char* k) {
    auto it = lim.env.find(k);
    return it == lim.env.end() ? std::string() : it->second;
  };
  for (const auto& p : split_paths(env("EVK_RUNNER_FS_WRITE")))
    if (fs::exists(p)) s.binds.push_back({fs::weakly_canonical(p).string(), true});
  for (const auto& p : split_paths(env("EVK_RUNNER_FS_READ")))
    if (fs::exists(p) && !in_system_tree(p) && !under(p, wd))
      s.binds.push_back({fs::weakly_canonical(p).string(), false});
  for (const auto& d : lim.system_dirs)
    if (fs::is_directory(d)) s.binds.push_back({d, false});
  // CPU topology for OpenMP, PoCL and the GPU driver; read-only, nothing of ours is there.
  if (fs::is_directory("/sys")) s.binds.push_back({"/sys", false});
  if (!lim.device_nodes.empty() && fs::is_directory("/dev"))
    for (const auto& e : fs::directory_iterator("/dev")) {
      const std::string n = e.path().filename().string();
      for (const auto& prefix : lim.device_nodes)
        if (n.rfind(prefix, 0) == 0 && !e.is_directory()) {
          s.devices.push_back(e.path().string());
          break;
        }
    }
  // Drop binds covered by an identical earlier one (a seed file inside the workdir, say).
  std::sort(s.binds.begin(), s.binds.end(),
            [](const JailBind& a, const JailBind& b) { return a.path < b.path; });
  s.binds.erase(std::unique(s.binds.begin(), s.binds.end(),
                            [](const JailBind& a, const JailBind& b) { return a.path == b.path; }),
                s.binds.end());
  return s;
}

}  // namespace

void set_unsafe_no_jail(bool on) {
  g_unsafe = on;
}

bool unsafe_no_jail() {
  const char* e = std::getenv("EVK_UNSAFE_NO_JAIL");
  return g_unsafe || (e && std::string(e) == "1");
}

const std::string& runner_jail_unavailable() {
  static const std::string why = jail_unavailable();
  return why;
}

RunnerRun run_runner(const RunnerJob& job, const RunnerLimits& lim, const std::string& workdir,
                     const RunnerHooks& hooks) {
  RunnerRun r;
  fs::path exe = runner_path();
  if (lim.executable != exe.filename()) exe = exe.parent_path() / lim.executable;
  if (!fs::exists(exe))
    throw Error("the runner " + exe.string() +
                " is missing: build it (make build) or install it "
                "beside evk-runner");
  exe = fs::canonical(exe);

  ProcessOptions o;
  o.cwd = workdir;
  o.clear_env = true;  // nothing of ours (workspace paths, keys) is visible to the candidate
  o.env["OMP_NUM_THREADS"] = std::to_string(lim.threads);
  o.env["OMP_THREAD_LIMIT"] = std::to_string(lim.threads);  // omp_set_num_threads cannot exceed it
  o.env["OMP_DYNAMIC"] = "false";
  // The pinning is the runner's whole mask; libgomp must not try to bind threads itself
  // (sched_setaffinity is not allowed in the sandbox).
  o.env["OMP_PROC_BIND"] = "false";
  // PoCL's pthread device (opencl backend) sizes its worker pool from this, not from OpenMP.
  o.env["POCL_MAX_PTHREAD_COUNT"] = std::to_string(lim.threads);
  o.env["POCL_AFFINITY"] = "0";
  o.env["LC_ALL"] = "C";
  for (const auto& [k, v] : lim.env) o.env[k] = v;
  o.stdin_data = to_json(job).dump();
  o.timeout_s = lim.timeout_s;
  o.address_space_bytes = lim.address_space_mb << 20;  // 0 leaves it unlimited
  o.cpu_seconds = static_cast<uint64_t>(std::ceil(lim.timeout_s * lim.threads)) + 5;
  // Output records (seeds, reuse, post-timing) plus slack; nothing else may be written.
  // Outputs go to shared memory (runner_protocol.h): the runner writes no file.
  o.file_size_bytes = 1 << 20;
  o.keep_fds = hooks.keep_fds;
  o.max_processes = 4096;  // the seccomp filter is what stops fork; this bounds non-root users
  o.output_cap = lim.output_cap;
  // Given CPUs (an interleaved confirmation runs two runners on the same ones) or a lease.
  std::optional<CpuLease> lease;
  if (lim.cpus.empty()) lease.emplace(lim.threads);
  o.cpus = lim.cpus.empty() ? lease->cpus() : lim.cpus;
  r.cpus = o.cpus;

  const std::string& why = runner_jail_unavailable();
  if (!why.empty() && !unsafe_no_jail())
    throw UsageError("this machine cannot jail candidate code (" + why +
                     "); see `evokernel doctor` for the fix, or pass --unsafe-no-jail to run "
                     "candidates without the jail (only on a machine you can afford to lose)");
  r.jailed = why.empty();
  if (r.jailed) {
    o.jail = jail_for(lim, exe, workdir);
    hand_to_jail(workdir);
  }
  o.on_stdout = hooks.on_stdout;
  r.process = run_process({exe.string()}, o);
  if (r.jailed && r.process.exit_code == 126 && r.process.term_signal == 0 &&
      r.process.err.rfind("evk jail: ", 0) == 0)
    throw Error(
        "the runner's jail could not be set up (run `evokernel doctor` for the cause "
        "and its fix): " +
        r.process.err.substr(0, 400));
  r.report = parse_runner_output(r.process.out);
  return r;
}

}  // namespace evk
