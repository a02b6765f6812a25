// The agent: per task, cold-start drafting until a kernel is feasible, then continual refining
// for the rest of the budget, over one memory shared by all tasks of the run
// (docs/architecture.md §3, §5). Reads top to bottom like the algorithm: run -> episode -> draft /
// refine.
//
// Resume invariant: every attempt commits in one transaction of the run database together
// with all its memory effects (Q updates, normaliser, items, provenance). Everything an attempt
// depends on (retrieval randomness, the LLM's seed) is derived from (run seed, task, attempt
// index), so a run killed at any point and resumed ends in the same state as one never stopped
// (given a deterministic provider: sim or replay).
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/auditor.h"
#include "agent/method.h"
#include "agent/prompt.h"
#include "backends/backend.h"
#include "llm/provider.h"
#include "memory/memory.h"
#include "run/executor.h"
#include "run/run_store.h"
#include "tasks/oracle.h"
#include "verify/verifier.h"

namespace evk {

struct AgentOptions {
  Method method;
  int budget = 30;  // attempts per task, both stages together
  int parallel_tasks = 1;
  uint64_t seed = 0;
  int history = 3;  // earlier attempts shown in a draft prompt
  bool freeze_memory = false;
  std::filesystem::path prompt_dir;
  // A verification the machinery failed (category infra: a node lost, a job cancelled) is
  // tried again this many times; after that it is logged with reward 0 and teaches nothing.
  int infra_retries = 2;
  // Confirmation before credit (verify/confirm.h): a refinement faster than the best by less
  // than max(confirm_band, the two timings' relative IQRs) is re-timed interleaved with it.
  bool confirm = true;
  double confirm_band = 0.25;
  VerifyOptions verify;
  OracleOptions oracle;
  MemoryParams memory;
  CompletionOptions completion;
  // The optional model auditor (agent/auditor.h): null, none. Asked about every feasible kernel
  // that would be credited as its task's new best; its policy may withhold that credit.
  std::shared_ptr<const Auditor> auditor;
  // Tasks to leave out without attempts, with the reason recorded for each.
  std::map<std::string, std::string> skip;
  // The fairness lint (tasks/lint.h) of each task as it is prepared, before any budget is
  // spent on it: Warn reports a degenerate task (event task_warning), Skip leaves it out.
  enum class Lint { Off, Warn, Skip };
  Lint lint = Lint::Off;
};

// What the agent reports as it goes (progress lines, JSON events).
struct AgentEvent {
  std::string task;
  int task_index = 0, task_count = 0;
  const Attempt* attempt = nullptr;  // null for task start/end events
  // "task_start", "attempt", "task_done", "task_skipped", "task_warning"
  std::string kind;
  std::string reason;  // task_skipped, task_warning: why ("oracle timeout: ...")
};
using AgentListener = std::function<void(const AgentEvent&)>;

class Agent {
 public:
  // Verifies where `executor` runs its jobs (this machine, a Slurm cluster); the agent stays
  // the single writer of memory and run database either way.
  Agent(Workspace& ws, Workspace& run_ws, Provider& llm, Executor& executor, const Backend& backend,
        AgentOptions opt, AgentListener listener = {});
  // Verifies on this machine.
  Agent(Workspace& ws, Workspace& run_ws, Provider& llm, Verifier& verifier, const Backend& backend,
        AgentOptions opt, AgentListener listener = {});

  // Runs (or continues) every task to its budget. A task that cannot be prepared (a broken
  // file, no reference for one of the verifier's seeds, a task in AgentOptions::skip) is
  // recorded as skipped with its reason and the others go on; only an error of the run itself
  // (the database, BudgetExceeded, a signal) stops it, resumably. A resumed run tries its
  // skipped tasks again and leaves the tasks that spent their budget as they are (not even
  // their references are made again).
  void run(const std::vector<const TaskInfo*>& tasks);

  // The first prompt the run would send, without sending it (--dry-run).
  std::string first_prompt(const TaskInfo& task);

  Memory& memory() { return memory_; }
  AttemptLog& log() { return log_; }

 public:
  struct TaskContext;  // one task's state during its episode (agent.cpp)

 private:
  Agent(Workspace& ws, Workspace& run_ws, Provider& llm, std::unique_ptr<Executor> own,
        Executor* executor, const Backend& backend, AgentOptions opt, AgentListener listener);
  void episode(const TaskInfo& task, int index, int count);
  Attempt draft(TaskContext& tc, int idx);
  Attempt refine(TaskContext& tc, int idx);
  void finish(TaskContext& tc, Attempt& a, std::vector<int64_t> context, Stage stage);
  void reward(TaskContext& tc, Attempt& a, Stage stage);
  void learn(TaskContext& tc, Attempt& a, const std::vector<int64_t>& context, Stage stage);
  std::string start_bound(const TaskContext& tc) const;
  void remember(TaskContext& tc, Attempt& a, Stage stage, const std::string& experience);
  std::string model_experience(TaskContext& tc, Attempt& a, Stage stage);
  void audit(TaskContext& tc, Attempt& a);
  // Sends `prompt` (built on the retrieved `context`), reads the code and verifies it.
  void ask_and_verify(TaskContext& tc, Attempt& a, std::string prompt,
                      const std::vector<int64_t>& context);
  std::optional<Confirmation> confirm_speedup(TaskContext& tc, Attempt& a, const Attempt& best);
  TaskContext load(const TaskInfo& task);
  // `resumed`: the task already has attempts in this run; failing to prepare it then leaves its
  // record alone (a warning), instead of recording it as skipped.
  std::optional<TaskContext> prepare(const TaskInfo& task, int index, int count, bool resumed);
  std::string lint_verdict(const TaskInfo& task, int index, int count);
  PromptInputs prompt_inputs(const TaskContext& tc) const;
  std::vector<PromptItem> to_prompt(const std::vector<Item>& items) const;
  std::vector<PromptItem> api_context(const MemoryQuery& q);
  std::vector<int64_t> gather_context(TaskContext& tc, const MemoryQuery& q, Stage stage, int idx);
  uint64_t attempt_seed(const std::string& task, int idx) const;
  // UsageError unless the memory holds a non-empty guide for the backend. Caller holds writer_.
  void require_guide();
  double epsilon_now();

  Workspace& ws_;
  Workspace& run_ws_;
  Provider& llm_;
  std::unique_ptr<Executor> own_executor_;  // the local one, when given a Verifier
  Executor& executor_;
  const Backend& backend_;
  AgentOptions opt_;
  AgentListener listener_;
  PromptTemplates templates_;
  Memory memory_;
  AttemptLog log_;
  std::mutex writer_;  // the single writer: retrieval and commits of all tasks go through it
  std::atomic<bool> cut_warned_{false};  // a reply cut at max_tokens was reported to the user
};

}  // namespace evk
