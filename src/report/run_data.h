// Everything the views of a run (report, show, export) read, loaded once: the run's record,
// its tasks and attempts, the metrics overall and per level, and its memory view.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "report/memory_view.h"
#include "report/metrics.h"
#include "run/run_store.h"

namespace evk {

struct RunData {
  RunInfo info;
  std::vector<TaskRecord> tasks;
  std::vector<Attempt> attempts;  // in attempt id order (the order they were committed)
  Metrics overall;
  std::map<int, Metrics> by_level;
  MemoryView memory;
};

// Opens runs/<id>/ of the workspace behind `store`. top_n: memory items shown per stage.
RunData load_run(RunStore& store, int64_t id, size_t top_n = 8);

// "run 3 (evokernel, sim)", with " SIMULATED" appended for runs of the offline coder.
std::string run_label(const RunInfo& info);
// The line every view prints for a simulated run.
extern const char* const kSimulatedNote;

// The eager baseline the run recorded at its start (tasks/baseline.h, baseline_record); null
// for a run from before it was kept.
nlohmann::json run_baseline(const RunInfo& info);
// Its line, printed beside the run's speed-ups over eager (results, report, show, export).
std::string run_baseline_line(const RunInfo& info);

// The fastest feasible attempt of a task (first on ties), or null when none is feasible.
const Attempt* best_attempt(const RunData& run, const std::string& task);
// The first feasible attempt of a task, or null.
const Attempt* first_feasible(const RunData& run, const std::string& task);
// The task's record, or a UsageError listing the run's tasks.
const TaskRecord& task_record(const RunData& run, const std::string& task);

// memory.alpha from the run's stored config (options.config), default 0.2.
double run_alpha(const RunInfo& info);

}  // namespace evk
