// `evokernel doctor`: what this machine can do, each line OK or MISSING with the fix.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/baseline_check.h"
#include "cli/context.h"
#include "core/build_info.h"
#include "core/cpu_lease.h"
#include "core/jail.h"
#include "core/paths.h"
#include "core/process.h"
#include "verify/peaks.h"
#include "verify/runner_client.h"

namespace evk::cli {
namespace fs = std::filesystem;

namespace {

struct Check {
  bool ok;
  std::string what, detail, fix;
  std::string failed = "MISSING";  // the status word when not ok
};

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

Check check_cmd(const std::string& what, const std::vector<std::string>& argv,
                const std::string& fix) {
  ProcessOptions o;
  o.timeout_s = 60;
  ProcessResult r = run_process(argv, o);
  std::string text = first_line(r.out.empty() ? r.err : r.out);
  return {r.ok(), what, r.ok() ? text : r.describe() + (text.empty() ? "" : ": " + text), fix};
}

// One line per layer of the candidate's jail (core/jail.h, runner/sandbox.h), each with a fix.
void jail_checks(std::vector<Check>& checks) {
  std::string why = jail_unavailable();
  const std::string ns_fix =
      "allow unprivileged user namespaces (sysctl user.max_user_namespaces=10000, and on "
      "Debian kernel.unprivileged_userns_clone=1; in a container: run it with "
      "--security-opt seccomp=unconfined or as a privileged one); until then verification "
      "refuses to run candidates unless --unsafe-no-jail is given";
  auto failed_at = [&](const char* step) { return why.find(step) != std::string::npos; };
  bool user = why.empty() ||
              !(failed_at("unshare (mount, pid") || failed_at("uid_map") || failed_at("gid_map") ||
                failed_at("setgroups") || failed_at("unshare (user"));
  checks.push_back({why.empty(), "jail",
                    why.empty() ? "user, mount, pid, net, ipc, uts namespaces; tmpfs view; "
                                  "uid " +
                                      std::to_string(jail_outer_uid()) +
                                      " outside, no "
                                      "capabilities"
                                : why,
                    user ? "the kernel refused a mount inside the jail: see the message; "
                           "until then pass --unsafe-no-jail (unjailed candidates)"
                         : ns_fix});
  ProcessResult sb = run_process({runner_path().string(), "--check-sandbox"});
  std::string text = sb.out;
  auto line_of = [&](const std::string& key) {
    auto at = text.find(key);
    if (at == std::string::npos) return std::string();
    std::string line = text.substr(at, text.find('\n', at) - at), out;
    for (char c : line)  // the runner pads its columns
      if (c != ' ' || out.empty() || out.back() != ' ') out += c;
    return out;
  };
  checks.push_back({sb.ok(), "seccomp allowlist",
                    sb.ok() ? "default deny, checked by evk-runner --check-sandbox"
                            : sb.describe() + " " + first_line(sb.out + sb.err),
                    "build evk-runner (make) and install libseccomp2; see evk-runner "
                    "--check-sandbox"});
  std::string ll = line_of("landlock");
  bool ll_ok = ll.find(" ok") != std::string::npos;  // "landlock (ABI 7)   ok"
  checks.push_back({ll_ok, "Landlock", ll.empty() ? "not reported by the runner" : ll,
                    "boot with lsm=...,landlock (Linux 5.13+); the CPU backend runs without it "
                    "(one layer fewer), the OpenCL backend needs it"});
  auto cpus = usable_cpus();
  std::string pin = line_of("pinned mask");
  checks.push_back({pin.find(" ok") != std::string::npos, "CPU pinning",
                    std::to_string(cpus.size()) + " CPUs usable; " + (pin.empty() ? "?" : pin),
                    "the runner is pinned with sched_setaffinity before exec; a cgroup cpuset "
                    "that forbids it must be widened"});
}

// Which build this is and where it finds its data and runners (core/paths.h).
void install_checks(std::vector<Check>& checks) {
  try {
    fs::path root = data_root();
    checks.push_back(
        {true, "installation",
         build_string() + "; data " + root.string() + "; runners " + runner_dir().string(), ""});
  } catch (const std::exception& e) {
    checks.push_back({false, "installation", build_string() + ": " + e.what(),
                      "reinstall (cmake --install, or the Debian package), or set EVK_HOME"});
  }
  bool ok = fs::exists(runner_path());
  checks.push_back({ok, "evk-runner", runner_path().string() + (ok ? "" : " not found"),
                    "build it (make build) or reinstall; EVK_RUNNER names another one"});
}

// The eager baseline as the oracle's own process runs it (tasks/baseline.h), probed afresh, and
// its GEMM rate against the FMA peak: a run refuses to start below the floor.
Check baseline_check(Context& ctx) {
  try {
    BaselineCheck c = check_baseline(ctx.workspace(), oracle_options(ctx.config()), true);
    const EagerBaseline& b = c.baseline;
    std::string detail = fmt::format(
        "{} ({}); GEMM {}^3 {:.1f} GFLOP/s, {:.1f}% of the FMA peak {:.1f} GFLOP/s (floor {:.0f}%)",
        b.describe(), b.blas_library, b.gemm_n, b.gemm_gflops, 100 * c.health.fraction,
        c.fma_gflops, 100 * kMinGemmFraction);
    return {c.health.ok, "eager baseline", detail, c.health.problem, "SLOW"};
  } catch (const std::exception& e) {
    return {false, "eager baseline", e.what(),
            "run scripts/setup (python3-torch, libopenblas0-pthread) or fix oracle.python",
            "FAILED"};
  }
}

}  // namespace

void add_doctor_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "doctor",
      "Check the tools evokernel uses (g++, PyTorch oracle, nvcc, PoCL), each layer of the "
      "candidates' jail (namespaces, seccomp, Landlock, CPU pinning), the workspace, the eager "
      "baseline (the BLAS torch loaded, its GEMM rate against the FMA peak) and the LLM "
      "endpoint; each line says OK or MISSING and how to fix it. Exit 1 when the eager "
      "baseline is below the floor (a run would refuse to start)");
  static bool online = false;
  cmd->add_flag("--online", online, "also send one tiny request to the configured LLM endpoint");
  static bool remeasure = false;
  cmd->add_flag("--remeasure-peaks", remeasure,
                "measure the machine's bandwidth and FLOP peaks again (on an idle machine) and "
                "raise the workspace's stored figures where the new ones are higher");
  cmd->callback([&ctx] {
    std::vector<Check> checks;
    install_checks(checks);
    checks.push_back(check_cmd("g++", {"g++", "--version"}, "run scripts/setup (build-essential)"));
    std::string py = ctx.config().str("oracle.python");
    checks.push_back(check_cmd("python3 + torch",
                               {py, "-c", "import torch; print('torch', torch.__version__)"},
                               "run scripts/setup (python3-torch, for " + py + ")"));
    jail_checks(checks);
    fs::path nvcc = fs::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
    checks.push_back(check_cmd("nvcc (cuda backend)", {nvcc.string(), "--version"},
                               "optional: install the CUDA toolkit for the cuda backend"));
    if (checks.back().ok) {  // the line naming the release, not the banner
      ProcessResult v = run_process({nvcc.string(), "--version"});
      size_t at = v.out.find("release");
      if (at != std::string::npos) checks.back().detail = "nvcc " + first_line(v.out.substr(at));
    }
    checks.push_back(check_cmd("PoCL (opencl backend)", {"clinfo", "-l"},
                               "optional: run scripts/setup (pocl-opencl-icd, clinfo)"));
    try {
      auto& ws = ctx.workspace();
      auto s = ws.db().prepare("PRAGMA integrity_check");
      s.step();
      std::string res = s.text(0);
      checks.push_back({res == "ok", "workspace", ws.root().string() + " (database " + res + ")",
                        "choose another folder with --workspace"});
    } catch (const std::exception& e) {
      checks.push_back({false, "workspace", e.what(), "choose another folder with --workspace"});
    }
    // The roofline's peaks (verify/peaks.h): a spread far above 1 says they were measured on
    // a busy machine, so the roofline fractions and the too_fast floor are off.
    try {
      int threads = static_cast<int>(ctx.config().integer("verify.threads"));
      MachinePeaks pk = machine_peaks(ctx.workspace(), threads, remeasure);
      bool stable = pk.gbps_spread > 0 && pk.gbps_spread < 1.15 && pk.gflops_spread < 1.15;
      checks.push_back({stable, "machine peaks", pk.describe(),
                        "the peaks were measured on a busy machine or with an older evokernel: "
                        "run `evokernel doctor --remeasure-peaks` when the machine is idle"});
    } catch (const std::exception& e) {
      checks.push_back({false, "machine peaks", e.what(), "build evk-runner (make)"});
    }
    checks.push_back(baseline_check(ctx));
    const bool baseline_ok = checks.back().ok;
    const auto& cfg = ctx.config();
    std::string model = cfg.str("llm.model");
    bool needs_key = model.rfind("openai:", 0) == 0;
    bool has_key = !cfg.str("llm.api_key").empty();
    std::string where = model == "sim" ? "the offline sim coder, a simulator: no endpoint needed"
                                       : fmt::format("at {} (key {})", cfg.str("llm.base_url"),
                                                     has_key ? "set" : "unset");
    checks.push_back({!needs_key || has_key, "LLM endpoint", "model " + model + ", " + where,
                      "set EVK_API_KEY or OPENAI_API_KEY for openai: models"});
    if (online)
      checks.push_back(check_cmd("LLM reachable",
                                 {(self_exe_dir() / "evokernel").string(), "llm", "ping"},
                                 "see `evokernel llm ping` for the diagnosis"));
    bool all = true;
    for (const auto& c : checks) {
      std::cout << fmt::format("{:<8} {:<22} {}\n", c.ok ? "OK" : c.failed, c.what, c.detail);
      if (!c.ok) std::cout << fmt::format("{:<8} {:<22} fix: {}\n", "", "", c.fix);
      all = all && c.ok;
    }
    // Doctor reports; an optional tool missing is not a failure of the command. A crippled
    // eager baseline is: every speed-up a run would report rests on it (`run` refuses it too).
    ctx.exit_code = baseline_ok ? 0 : 1;
    (void)all;
  });
}

}  // namespace evk::cli
