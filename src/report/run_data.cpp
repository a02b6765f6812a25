#include "report/run_data.h"

#include <fmt/format.h>

#include <set>

#include "core/error.h"
#include "tasks/baseline.h"

namespace evk {

const char* const kSimulatedNote =
    "SIMULATED: model sim is the offline coder (docs/architecture.md §8), not an LLM";

nlohmann::json run_baseline(const RunInfo& info) {
  return info.options.is_object() ? info.options.value("baseline", nlohmann::json())
                                  : nlohmann::json();
}

std::string run_baseline_line(const RunInfo& info) {
  return baseline_line(run_baseline(info));
}

double run_alpha(const RunInfo& info) {
  const auto& o = info.options;
  if (!o.is_object() || !o.contains("config")) return 0.2;
  const auto& c = o["config"];
  if (!c.is_object() || !c.contains("memory.alpha")) return 0.2;
  const auto& a = c["memory.alpha"];
  try {
    return a.is_number() ? a.get<double>() : std::stod(a.get<std::string>());
  } catch (const std::exception&) {
    return 0.2;
  }
}

RunData load_run(RunStore& store, int64_t id, size_t top_n) {
  RunData r;
  r.info = store.get(id);
  Workspace run_ws(store.run_dir(id));
  AttemptLog log(run_ws);
  r.tasks = log.tasks();
  r.attempts = log.all();
  r.overall = compute_metrics(r.tasks, r.attempts, r.info.budget);
  std::set<int> levels;
  for (const auto& t : r.tasks) levels.insert(t.level);
  for (int l : levels) r.by_level[l] = compute_metrics(r.tasks, r.attempts, r.info.budget, {l});
  bool frozen = r.info.options.is_object() && r.info.options.value("freeze_memory", false);
  r.memory = load_memory_view(run_ws.db(), r.attempts, run_alpha(r.info), frozen, top_n);
  return r;
}

std::string run_label(const RunInfo& info) {
  return fmt::format("run {} ({}, {}){}", info.id, info.method, info.model,
                     info.simulated ? " SIMULATED" : "");
}

const Attempt* best_attempt(const RunData& run, const std::string& task) {
  const Attempt* best = nullptr;
  for (const auto& a : run.attempts)
    if (a.task == task && credited_feasible(a) &&
        (!best || a.verdict.latency_ms < best->verdict.latency_ms))
      best = &a;
  return best;
}

const Attempt* first_feasible(const RunData& run, const std::string& task) {
  const Attempt* first = nullptr;
  for (const auto& a : run.attempts)
    if (a.task == task && credited_feasible(a) && (!first || a.idx < first->idx)) first = &a;
  return first;
}

const TaskRecord& task_record(const RunData& run, const std::string& task) {
  for (const auto& t : run.tasks)
    if (t.task == task) return t;
  std::string known;
  for (const auto& t : run.tasks) known += (known.empty() ? "" : ", ") + t.task;
  throw UsageError(fmt::format("run {} has no task '{}' (its tasks: {})", run.info.id, task,
                               known.empty() ? "none yet" : known));
}

}  // namespace evk
