// `evokernel verify SUITE TASK --source FILE`: runs a kernel through every gate and prints
// each gate's outcome and the feedback. Exit 0 when feasible, 1 when not, 2 on bad usage.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "backends/backend.h"
#include "cli/baseline_check.h"
#include "cli/context.h"
#include "cli/executor_flags.h"
#include "core/error.h"
#include "core/paths.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace evk::cli {

namespace {

struct VerifyArgs {
  std::string suite, task, source;
  std::vector<std::string> more_sources;
  bool json = false, no_cache = false;
  int seeds = 0, jobs = 0;
  std::string backend;
  ExecutorArgs exec;
};

void print_verdict(const std::string& label, const Verdict& v) {
  std::cout << fmt::format("{}: {} ({}){}\n", label, v.feasible ? "FEASIBLE" : "INFEASIBLE",
                           category_name(v.category), v.cached ? " [cached]" : "");
  for (const auto& g : v.gates)
    std::cout << fmt::format("  {:<13} {:<5} {}\n", gate_name(g.gate), g.passed ? "pass" : "FAIL",
                             g.detail);
  std::cout << "feedback:\n";
  std::string fb = v.feedback;
  size_t start = 0;
  while (start < fb.size()) {
    size_t e = fb.find('\n', start);
    if (e == std::string::npos) e = fb.size();
    std::cout << "  " << fb.substr(start, e - start) << "\n";
    start = e + 1;
  }
  std::cout << fmt::format("verified in {:.2f} s\n", v.wall_s);
}

}  // namespace

void add_verify_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand(
      "verify",
      "Run a kernel through every gate (static anti-hack, compile, correctness on several "
      "seeds, dynamic anti-hack, latency) and print each outcome with the feedback. Exit 0 when "
      "feasible, 1 when not, 2 on bad usage");
  cmd->add_option("suite", a->suite, "suite: builtin:level1 or a folder of KernelBench tasks")->required();
  cmd->add_option("task", a->task, "task id (the file name without .py)")->required();
  cmd->add_option("--source", a->source, "the kernel's source file")->required();
  cmd->add_option("--also", a->more_sources,
                  "more source files for the same task, verified in parallel with --jobs");
  cmd->add_flag("--json", a->json, "print the verdict(s) as JSON");
  cmd->add_option("--seeds", a->seeds, "seeds checked for correctness (default: verify.seeds)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--jobs", a->jobs, "verifications at once (default: verify.jobs)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--backend", a->backend, "target backend: " + backend_help())
      ->default_val("cpu");
  cmd->add_flag("--no-cache", a->no_cache, "verify again even when a verdict is cached");
  add_executor_options(cmd, a->exec);
  cmd->callback([&ctx, a] {
    std::vector<std::string> files = {a->source};
    files.insert(files.end(), a->more_sources.begin(), a->more_sources.end());
    std::vector<std::string> sources;
    for (const auto& f : files) {
      if (!std::filesystem::is_regular_file(f))
        throw UsageError("source file '" + f + "' does not exist: pass the kernel with --source FILE");
      sources.push_back(read_file(f));
    }
    Config& cfg = ctx.config();
    apply_executor_flags(cfg, a->exec);
    VerifyOptions opt = verify_options(cfg);
    if (a->seeds > 0) opt.seeds = a->seeds;
    opt.backend = a->backend;
    opt.use_cache = !a->no_cache;
    int jobs = a->jobs > 0 ? a->jobs : static_cast<int>(cfg.integer("verify.jobs"));
    OracleOptions oo = oracle_options(cfg);
    oo.threads = opt.threads;
    Verifier verifier(ctx.workspace(), oo);
    // Before anything is computed: a Slurm that cannot be used is a usage error.
    auto executor = make_executor(ctx, verifier, oo, jobs);
    auto guard = cancel_jobs_on_signal(*executor, "nothing was verified");
    Suite suite = load_suite(ctx.workspace(), a->suite, oracle_options(ctx.config()));
    const TaskInfo& task = find_task(suite, a->task);
    if (!task.ok) throw Error("task " + task.id + " is broken: " + task.error);

    VerifyWork work;
    for (const auto& s : sources) work.emplace_back(&task, s);
    std::vector<Verdict> verdicts = executor->verify_batch(work, opt);

    // What every "x eager" above is against (tasks/baseline.h): cached, so free here.
    BaselineCheck eager = check_baseline(ctx.workspace(), oo, false);
    bool all = true;
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < verdicts.size(); ++i) {
      all = all && verdicts[i].feasible;
      if (a->json) {
        auto j = to_json(verdicts[i]);
        j["source"] = files[i];
        j["task"] = task.id;
        j["eager_baseline"] =
            baseline_record(eager.baseline, eager.health, eager.fma_gflops, false, false);
        out.push_back(j);
      } else {
        print_verdict(fmt::format("{} on {}", files[i], task.id), verdicts[i]);
      }
    }
    if (a->json) std::cout << (out.size() == 1 ? out[0] : out).dump(1) << "\n";
    if (!a->json)
      std::cout << (eager.health.ok ? baseline_line(baseline_record(eager.baseline, eager.health,
                                                                    eager.fma_gflops, false, false))
                                    : "eager baseline: SLOW: " + eager.health.problem)
                << "\n";
    ctx.exit_code = all ? 0 : 1;
  });
}

}  // namespace evk::cli
