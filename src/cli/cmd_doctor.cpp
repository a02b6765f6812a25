// `evokernel doctor`: what this machine can do, each line OK or MISSING with the fix.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/context.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk::cli {
namespace fs = std::filesystem;

namespace {

struct Check {
  bool ok;
  std::string what, detail, fix;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

Check check_cmd(const std::string& what, const std::vector<std::string>& argv,
                const std::string& fix) {
  ProcessOptions o;
  o.timeout_s = 60;
  ProcessResult r = run_process(argv, o);
  std::string text = first_line(r.out.empty() ? r.err : r.out);
  return {r.ok(), what, r.ok() ? text : r.describe() + (text.empty() ? "" : ": " + text), fix};
}

}  // namespace

void add_doctor_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "doctor",
      "Check the tools evokernel uses (g++, PyTorch oracle, seccomp, nvcc, PoCL), the "
      "workspace and the LLM endpoint; each line says OK or MISSING and how to fix it");
  static bool online = false;
  cmd->add_flag("--online", online, "also send one tiny request to the configured LLM endpoint");
  cmd->callback([&ctx] {
    std::vector<Check> checks;
    checks.push_back(check_cmd("g++", {"g++", "--version"}, "run scripts/setup (build-essential)"));
    std::string py = ctx.config().str("oracle.python");
    checks.push_back(check_cmd("python3 + torch",
                               {py, "-c", "import torch; print('torch', torch.__version__)"},
                               "run scripts/setup (python3-torch, for " + py + ")"));
    checks.push_back(check_cmd("seccomp sandbox", {runner_path().string(), "--check-sandbox"},
                               "build evk-runner (make) and install libseccomp2"));
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
      checks.push_back(check_cmd("LLM reachable", {(self_exe_dir() / "evokernel").string(), "llm", "ping"},
                                 "see `evokernel llm ping` for the diagnosis"));
    bool all = true;
    for (const auto& c : checks) {
      std::cout << fmt::format("{:<8} {:<22} {}\n", c.ok ? "OK" : "MISSING", c.what, c.detail);
      if (!c.ok) std::cout << fmt::format("{:<8} {:<22} fix: {}\n", "", "", c.fix);
      all = all && c.ok;
    }
    ctx.exit_code = 0;  // doctor reports; optional tools missing is not a failure of the command
    (void)all;
  });
}

}  // namespace evk::cli
