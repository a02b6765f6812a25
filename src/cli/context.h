// What every subcommand shares: the global options and, opened on first use, the workspace
// and the effective configuration (flags applied last).
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "core/config.h"
#include "core/workspace.h"

namespace evk::cli {

struct GlobalOptions {
  std::string workspace;
  std::string config;
  int64_t max_elements = -1;  // -1: not given on the command line
  double max_gflop = -1;      // -1: not given on the command line
};

class Context {
 public:
  explicit Context(const GlobalOptions& g) : g_(g) {}
  Workspace& workspace();
  Config& config();
  const GlobalOptions& globals() const { return g_; }
  int64_t max_elements() { return config().integer("tasks.max_elements"); }

  // What main returns when the command ends without an exception (verify: 1 when infeasible).
  int exit_code = 0;

 private:
  const GlobalOptions& g_;
  std::unique_ptr<Workspace> ws_;
  std::unique_ptr<Config> cfg_;
};

// Adds --workspace, --config and --max-elements to an app or subcommand. They are accepted
// before and after the subcommand name.
void add_global_options(CLI::App& app, GlobalOptions& g);

// Each subcommand group registers itself here (cmd_<name>.cpp).
void add_doctor_command(CLI::App& app, Context& ctx);
void add_config_command(CLI::App& app, Context& ctx);
void add_tasks_command(CLI::App& app, Context& ctx);
void add_run_command(CLI::App& app, Context& ctx);  // run, runs, results, bench
void add_verify_command(CLI::App& app, Context& ctx);
void add_verify_job_command(CLI::App& app, Context& ctx);  // what Slurm jobs run
void add_llm_command(CLI::App& app, Context& ctx);
void add_memory_command(CLI::App& app, Context& ctx);
void add_report_command(CLI::App& app, Context& ctx);

}  // namespace evk::cli
