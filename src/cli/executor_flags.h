// --executor and its Slurm flags, shared by `run` and `verify`: flags go into the config
// (verify.executor, slurm.*), so a run stores them and --resume reuses them unless overridden.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/context.h"
#include "run/cancel_on_signal.h"
#include "run/executor.h"

namespace evk::cli {

struct ExecutorArgs {
  std::string executor, partition;
  std::vector<std::string> slurm_args;
  int max_in_flight = 0;
};

void add_executor_options(CLI::App* cmd, ExecutorArgs& a);

// Applies the given flags over the config.
void apply_executor_flags(Config& cfg, const ExecutorArgs& a);

// The executor the config names. `slurm` is checked first (sbatch on PATH, controller answers,
// partition exists): a UsageError naming the fix, with nothing written. `local` wraps `local`
// with a pool of `jobs` for batches.
std::unique_ptr<Executor> make_executor(Context& ctx, Verifier& local, const OracleOptions& oracle,
                                        int jobs);

// With slurm: Ctrl-C or SIGTERM cancels the executor's jobs (scancel), prints `note` and ends
// the process by the signal. With local: nothing (the verifier's children die with us).
std::unique_ptr<CancelOnSignal> cancel_jobs_on_signal(Executor& e, std::string note);

}  // namespace evk::cli
