// Runs and their attempts. The workspace database keeps the index of runs; each run has its
// own folder runs/<id>/ with a database holding its attempts AND its memory, so that an attempt
// and every memory effect it causes commit in one transaction (the resume invariant: after a
// crash, an attempt is either entirely there, with its Q updates and items, or not at all).
#pragma once
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/audit.h"
#include "core/stage.h"
#include "core/verdict.h"
#include "core/workspace.h"

namespace evk {

// Where a run stands. A run killed while running (SIGKILL, a crash) stays Running: resume
// tells it apart from a live one by nothing but the user's word.
enum class RunStatus {
  Running,
  Done,
  Stopped,      // a cost or token limit
  Interrupted,  // an error of the run itself, or a signal
};
const char* run_status_name(RunStatus s);  // "running", "done", "stopped", "interrupted"

struct RunInfo {
  int64_t id = 0;
  std::string created;
  RunStatus status = RunStatus::Running;
  std::string method, model, suite, backend;
  std::vector<std::string> tasks;
  int budget = 0;
  uint64_t seed = 0;
  bool simulated = false;
  nlohmann::json options;  // everything needed to resume: config values, flags
};

struct Attempt {
  int64_t id = 0;
  std::string task;
  int idx = 0;  // 1-based within the task
  Stage stage = Stage::Draft;
  std::string prompt, reply, code;
  std::vector<int64_t> context_ids;
  std::optional<int64_t> start_point;  // attempt id refined from
  int64_t trace_item = 0;              // the memory item written for this attempt (0: none)
  Verdict verdict;
  Audit audit;  // the model auditor's review, when it had one (core/audit.h)
  double reward = 0, reward_raw = 0;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  double cost_usd = 0, llm_s = 0, verify_s = 0;
  std::string created;
};

// Feasible and not withheld by the auditor: an attempt that may be the task's best, a start
// point and a solution in the metrics.
inline bool credited_feasible(const Attempt& a) {
  return a.verdict.feasible && !a.audit.withheld;
}

struct TaskRecord {  // per (run, task): what metrics need besides the attempts
  std::string task;
  int level = 0;
  double eager_ms = 0;
  int64_t flops = 0, bytes = 0;
  bool fitted = false;
  // Why the task was left out without attempts (its file is broken, its reference could not
  // be made: "oracle timeout: ..."); empty for a task that was worked on.
  std::string skipped;
};

// The builds that made a run, oldest first (options.builds): one for a run never resumed by
// another build; empty for runs made before builds were recorded.
std::vector<std::string> run_builds(const RunInfo& info);
// "evokernel 0.2.0 (1a2b3c), resumed by evokernel 0.2.0 (4d5e6f)".
std::string join_builds(const std::vector<std::string>& builds);

class RunStore {
 public:
  explicit RunStore(Workspace& ws);

  int64_t create(const RunInfo& info);
  RunInfo get(int64_t id);
  std::vector<RunInfo> list();
  int64_t latest();  // UsageError when the workspace holds no run
  // RUN given as text: a number, or "" / "latest" for the newest.
  int64_t resolve(const std::string& run);
  void set_status(int64_t id, RunStatus status);
  // Records that `build` (core/build_info.h) works on run `id`: appended to options.builds
  // when it differs from the last build recorded. Returns the previous build when it differed
  // ("" for a new run or the same build), so that a resume by another build can say so.
  std::string record_build(int64_t id, const std::string& build);

  // The run's own database (attempts + memory), created on first use.
  std::filesystem::path run_dir(int64_t id) const;

 private:
  Workspace& ws_;
};

// The attempts of one run, in the run's own database. Not thread-safe: callers serialise
// (the agent's single writer).
class AttemptLog {
 public:
  explicit AttemptLog(Workspace& run_ws);
  void put_task(const TaskRecord& t);
  std::vector<TaskRecord> tasks();
  int64_t insert(const Attempt& a);  // inside the caller's transaction
  std::vector<Attempt> for_task(const std::string& task);
  std::vector<Attempt> all();
  int64_t count();

 private:
  Workspace& ws_;
};

}  // namespace evk
