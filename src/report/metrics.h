// The paper's metrics (docs/architecture.md §9), computed from a run's attempts alone, so that
// they can be recomputed at any time, for any run, and compared across runs.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/run_store.h"

namespace evk {

struct Spread {
  double median = 0, q1 = 0, q3 = 0;
  int n = 0;
};

struct TaskResult {
  std::string task;
  int level = 0;
  bool solved = false;
  int attempts = 0, first_feasible_idx = 0;  // 0: never
  double eager_ms = 0, first_ms = 0, best_ms = 0;
  int64_t best_attempt = 0;
  double roofline_fraction = 0;
  bool fitted = false;
  int audited = 0, withheld = 0;  // attempts the model auditor reviewed, and withheld
};

// The model auditor's reviews (agent/auditor.h) over the attempts counted.
struct AuditCounts {
  int audited = 0, clean = 0, suspicious = 0, unparsed = 0, failed = 0;
  int withheld = 0;  // credit withheld by audit.policy = withhold: not solutions, not the best
  int calls = 0;
  int64_t prompt_tokens = 0, completion_tokens = 0;  // part of `tokens`
};

struct Metrics {
  int tasks = 0, solved = 0, attempts = 0, with_code = 0, compiled = 0;
  double compilation_rate = 0;      // compiled / attempts that produced code (infra excluded)
  double acc = 0;                   // solved / tasks
  std::map<double, double> fast_p;  // p -> share of all tasks correct and > p x eager
  double fast1_ratio = 0;           // fast_1 / acc: of the solved, the share faster than eager
  Spread speedup_over_first;        // best vs first feasible draft, solved tasks
  double geomean_over_eager = 0;    // solved tasks
  double acc_round1 = 0, fast1_round1 = 0;
  Spread attempts_to_first;  // solved tasks
  int64_t tokens = 0;
  double cost_usd = 0;
  double tokens_per_solved = 0, cost_per_solved = 0;
  std::vector<double> acc_curve;     // Acc after attempt k (k = 1..budget)
  std::map<Category, int> failures;  // infeasible attempts by category, in gate order
  AuditCounts audit;
  std::vector<TaskResult> per_task;
  // Tasks left out without attempts (TaskRecord::skipped): task -> reason. They are not in
  // `tasks` nor in any rate: a task nobody could attempt says nothing about the method.
  std::map<std::string, std::string> skipped;
};

// Tasks without attempts count as unsolved, skipped tasks are listed apart; levels filters
// (empty: all). An attempt whose credit the auditor withheld is no solution (credited_feasible).
Metrics compute_metrics(const std::vector<TaskRecord>& tasks, const std::vector<Attempt>& attempts,
                        int budget, const std::vector<int>& levels = {});

nlohmann::json to_json(const Metrics& m);
// The summary table printed by `evokernel results`.
std::string format_metrics(const Metrics& m, const std::string& title);

}  // namespace evk
