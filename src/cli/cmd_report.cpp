// `evokernel report | show | export`: seeing a run (an HTML page, one kernel on the terminal)
// and taking its kernels and metrics away.
#include <fmt/format.h>

#include <iostream>

#include "cli/context.h"
#include "core/error.h"
#include "core/paths.h"
#include "report/export.h"
#include "report/html_report.h"

namespace evk::cli {
namespace {

// [RUN] X: one positional is X (of the latest run); two are RUN then X.
std::pair<std::string, std::string> run_and(const std::vector<std::string>& pos,
                                            const std::string& what) {
  if (pos.size() == 1) return {"", pos[0]};
  if (pos.size() == 2) return {pos[0], pos[1]};
  throw UsageError(fmt::format("expected [RUN] {}, got {} arguments", what, pos.size()));
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  static std::string run;
  static std::vector<std::string> compare;
  static std::string out = "report.html";
  auto* report = app.add_subcommand(
      "report",
      "Write one self-contained HTML page about a run (no network needed): metrics per level, "
      "Acc per attempt, fast_p, speed-ups, gate failures, what the memory learned, and every "
      "task's best kernel, with the eager baseline the speed-ups are against (torch, BLAS, "
      "threads, CPU capability). Runs of the offline sim coder are labelled SIMULATED, runs "
      "let through by --allow-slow-baseline SLOW BASELINE.");
  report->add_option("RUN", run, "run id (default: the latest)");
  report
      ->add_option("--compare", compare, "other run ids to compare with (repeat or comma-separate)")
      ->delimiter(',');
  report->add_option("--out", out, "the HTML file to write (default report.html)");
  report->callback([&ctx] {
    RunStore store(ctx.workspace());
    std::vector<RunData> runs;
    runs.push_back(load_run(store, store.resolve(run)));
    for (const auto& c : compare) {
      if (c.empty() || c == "latest")
        throw UsageError("--compare needs run ids (see `evokernel runs`), not '" + c + "'");
      runs.push_back(load_run(store, store.resolve(c)));
    }
    write_file_atomic(out, render_report(runs));
    std::string with;
    for (size_t i = 1; i < runs.size(); ++i)
      with += fmt::format("{}{}", i == 1 ? "" : ", ", runs[i].info.id);
    std::cout << fmt::format("wrote {} (run {}{}{}): open it in a browser\n", out, runs[0].info.id,
                             with.empty() ? "" : " compared with run " + with,
                             runs[0].info.simulated ? ", SIMULATED" : "");
    for (const auto& r : runs)
      std::cout << fmt::format("run {} {}\n", r.info.id, run_baseline_line(r.info));
  });

  static std::vector<std::string> show_args;
  auto* show = app.add_subcommand(
      "show",
      "Print the best kernel of a task in a run with its verdict: gates, latency, "
      "speed-ups over eager and over the first draft (exit 1 when the task has none)");
  show->add_option("ARGS", show_args, "[RUN] TASK: run id (default: the latest) and task id")
      ->required()
      ->expected(1, 2);
  show->callback([&ctx] {
    auto [which, task] = run_and(show_args, "TASK");
    RunStore store(ctx.workspace());
    RunData r = load_run(store, store.resolve(which));
    bool found = false;
    std::cout << format_show(r, task, &found);
    if (!found) ctx.exit_code = 1;
  });

  static std::vector<std::string> export_args;
  auto* exp = app.add_subcommand(
      "export",
      "Write a run's best kernels as DIR/<task>.cpp (.cu for cuda) with DIR/manifest.json "
      "(latency, speed-ups, verdict, model, seed, the eager baseline), and its metrics as "
      "metrics.csv, tasks.csv and metrics.json (each row with the eager baseline's torch, "
      "BLAS, threads and CPU capability)");
  exp->add_option("ARGS", export_args, "[RUN] DIR: run id (default: the latest) and a folder")
      ->required()
      ->expected(1, 2);
  exp->callback([&ctx] {
    auto [which, dir] = run_and(export_args, "DIR");
    RunStore store(ctx.workspace());
    RunData r = load_run(store, store.resolve(which));
    int n = export_run(r, dir);
    std::cout << fmt::format("wrote {} kernel(s) of {} task(s) of run {}{} to {}\n", n,
                             r.overall.tasks, r.info.id, r.info.simulated ? " (SIMULATED)" : "",
                             dir);
    std::cout << run_baseline_line(r.info) << "\n";
  });
}

}  // namespace evk::cli
