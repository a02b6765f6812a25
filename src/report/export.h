// `evokernel show` and `evokernel export`: a run's best kernels as text and as files, and its
// metrics as CSV and JSON for spreadsheets and scripts.
//
// Export layout (files are rewritten, other files in DIR are left alone):
//   DIR/<task>.cpp     the best feasible kernel of each solved task
//   DIR/manifest.json  run (id, method, model, seed, simulated, the eager baseline: torch,
//                      BLAS, threads, CPU capability, slow_baseline) and one entry per task:
//                      file, latency, eager, speed-ups vs first draft and vs eager, verdict
//   DIR/metrics.json   the metrics overall and per level (same shape as `results --json`)
//   DIR/metrics.csv    one row per scope (level N, overall): the summary metrics and the
//                      eager baseline's columns (eager_torch, eager_blas, eager_threads,
//                      eager_cpu_capability, slow_baseline), as in tasks.csv
//   DIR/tasks.csv      one row per task
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "report/run_data.h"

namespace evk {

// The best kernel of a task and its verdict, for a terminal. `found` is set to whether the task
// has a feasible kernel (without one, the last attempt's verdict and code are shown).
// UsageError when the run has no such task.
std::string format_show(const RunData& run, const std::string& task, bool* found = nullptr);

// File name of a task's kernel: the id with anything but [A-Za-z0-9._-] replaced by '_', and
// the extension of the backend's source file (relu.cpp, relu.cu).
std::string kernel_file_name(const std::string& task, const std::string& backend);

nlohmann::json manifest_json(const RunData& run);
nlohmann::json metrics_json(const RunData& run);
std::string metrics_csv(const RunData& run);
std::string tasks_csv(const RunData& run);

// Writes the layout above; returns the number of kernels written.
int export_run(const RunData& run, const std::filesystem::path& dir);

}  // namespace evk
