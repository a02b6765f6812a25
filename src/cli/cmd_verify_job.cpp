// `evokernel verify-job JOB.json`: what a Slurm job runs on a node (src/run/verify_job.h).
// Verifies the candidate the job file describes and writes JOB.verdict.json next to it. Exits 0
// whenever the verdict was written, whatever the kernel did, so that Slurm's job state speaks
// only of the infrastructure.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/context.h"
#include "core/error.h"
#include "run/verify_job.h"

namespace evk::cli {

void add_verify_job_command(CLI::App& app, Context&) {
  static std::string file;
  auto* cmd = app.add_subcommand(
      "verify-job",
      "Run one verification job file written by `--executor slurm` (what a cluster node runs; "
      "writes JOB.verdict.json next to it)");
  cmd->add_option("JOB", file, "the job file (JSON) under <workspace>/slurm/")->required();
  cmd->callback([] {
    if (!std::filesystem::is_regular_file(file))
      throw UsageError("job file '" + file +
                       "' does not exist: the workspace's slurm/ folder must be on a filesystem "
                       "the nodes share with the submitting machine");
    Verdict v = run_verify_job(file);
    std::cout << fmt::format("{}: {} ({}) in {:.2f} s -> {}\n", file,
                             v.feasible ? "FEASIBLE" : "INFEASIBLE", category_name(v.category),
                             v.wall_s, verdict_path(file).string());
  });
}

}  // namespace evk::cli
