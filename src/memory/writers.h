// Builders of the items an agent adds after attempts (docs/architecture.md §3, step 4
// "Remember": a trace per attempt, an experience when a draft fixes the failure before it, a
// best practice when a refinement beats the best). They take
// plain fields, know nothing about the agent or the verifier, and are deterministic.
//
// Tags carry the task's op names, the failure category and, for failures, the names from any
// `// evk-pitfall: NAME` marker line in the code. Such marker lines are also kept verbatim in
// the body so that they reach prompts even when the code is not shown.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/verdict.h"
#include "memory/item.h"

namespace evk {

struct TraceInput {
  std::string task, backend;
  std::vector<std::string> ops;  // the task's operator names
  std::string code;
  Category category = Category::Ok;  // the verdict's
  std::string feedback;
  bool feasible = false;
  std::optional<double> latency_ms;
  std::optional<int64_t> parent;  // start point when refining
};
// Every attempt.
Item make_trace(const TraceInput& in);

struct ExperienceInput {
  std::string task, backend;
  std::vector<std::string> ops;
  std::string failed_code;  // the failure, with its category and feedback
  Category category = Category::Ok;
  std::string feedback;
  std::string fixed_code;                       // the feasible attempt that followed
  std::optional<int64_t> parent;                // e.g. the fixing attempt's trace
};
// Given the rule-based draft (what failed, the error excerpt, the diff to the fix), returns
// the summary to store as the body; empty or throwing falls back to the rule-based text.
using Summariser = std::function<std::string(const std::string& rule_based)>;
// A failure followed by a success on the same task.
Item make_experience(const ExperienceInput& in, const Summariser& summarise = {});

struct BestPracticeInput {
  std::string task, backend;
  std::vector<std::string> ops;
  std::string start_code;
  double start_ms = 0;
  std::string new_code;
  double new_ms = 0;
  std::optional<int64_t> parent;
  // The verifier's diagnoses of the start point and of the new kernel: the item is tagged with
  // the bound it addressed (before's, as bound_NAME) and says what the bound became.
  Diagnosis before, after;
};
// A refinement that beat the task's best; tags name the optimisations seen in the added lines
// (parallelise, vectorise, block, fuse, unroll) and the bound it addressed (bound_NAME).
Item make_best_practice(const BestPracticeInput& in);

// Names from `evk-pitfall: NAME` marker lines, in order, and the marker lines themselves.
std::vector<std::string> pitfall_names(const std::string& code);
std::vector<std::string> pitfall_lines(const std::string& code);

// A line diff ("- old" / "+ new" lines, longest common subsequence), at most max_lines lines.
std::string diff_summary(const std::string& before, const std::string& after,
                         size_t max_lines = 40);

}  // namespace evk
