#include "cli/executor_flags.h"

#include <iostream>

#include "core/error.h"
#include "run/slurm_executor.h"

namespace evk::cli {

void add_executor_options(CLI::App* cmd, ExecutorArgs& a) {
  cmd->add_option("--executor", a.executor,
                  "where verifications run: local (this machine, default from verify.executor) "
                  "or slurm (one batch job per candidate on a Slurm cluster; README: Slurm)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--partition", a.partition, "slurm: the partition jobs go to (slurm.partition)");
  cmd->add_option("--slurm-arg", a.slurm_args,
                  "slurm: one more sbatch argument, repeatable, e.g. --slurm-arg=--gres=gpu:1 "
                  "--slurm-arg=--time=00:20:00 (adds to slurm.args)");
  cmd->add_option("--max-in-flight", a.max_in_flight,
                  "slurm: jobs submitted and not yet answered, at most (slurm.max_in_flight)")
      ->check(CLI::Range(1, 100000));
}

void apply_executor_flags(Config& cfg, const ExecutorArgs& a) {
  if (!a.executor.empty()) cfg.set("verify.executor", a.executor, "flag");
  if (!a.partition.empty()) cfg.set("slurm.partition", a.partition, "flag");
  if (!a.slurm_args.empty()) {
    std::string args = cfg.str("slurm.args");
    for (const auto& s : a.slurm_args) {
      if (s.find_first_of(" \t") != std::string::npos)
        throw UsageError("--slurm-arg '" + s +
                         "' holds a space: give each sbatch argument as its own --slurm-arg");
      if (!args.empty()) args += ' ';
      args += s;
    }
    cfg.set("slurm.args", args, "flag");
  }
  if (a.max_in_flight > 0) cfg.set("slurm.max_in_flight", std::to_string(a.max_in_flight), "flag");
  bool slurm_flags = !a.partition.empty() || !a.slurm_args.empty() || a.max_in_flight > 0;
  if (slurm_flags && cfg.str("verify.executor") != "slurm")
    throw UsageError(
        "--partition, --slurm-arg and --max-in-flight apply to Slurm: add "
        "--executor slurm");
}

std::unique_ptr<Executor> make_executor(Context& ctx, Verifier& local, const OracleOptions& oracle,
                                        int jobs) {
  const Config& cfg = ctx.config();
  const std::string which = cfg.str("verify.executor");
  if (which == "local") return std::make_unique<LocalExecutor>(local, jobs);
  if (which != "slurm")
    throw UsageError("verify.executor = '" + which + "' is unknown: use local or slurm");
  SlurmOptions o = slurm_options(cfg);
  o.workspace = ctx.workspace().root();
  o.oracle = oracle;
  slurm_preflight(o);
  return std::make_unique<SlurmExecutor>(std::move(o));
}

std::unique_ptr<CancelOnSignal> cancel_jobs_on_signal(Executor& e, std::string note) {
  auto* slurm = dynamic_cast<SlurmExecutor*>(&e);
  if (!slurm) return nullptr;
  return std::make_unique<CancelOnSignal>([slurm, note](int sig) {
    slurm->abandon();
    std::cerr << "\nevokernel: " << (sig == SIGINT ? "interrupted" : "terminated")
              << "; cancelled this process's Slurm jobs; " << note << "\n";
  });
}

}  // namespace evk::cli
