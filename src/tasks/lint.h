// The fairness lint of a task (oracle/evk_oracle.py `lint`): at the fitted size and with the
// run's seeding, a task is degenerate when a kernel could pass it without computing it (all
// zeros, a constant, a copy of an input, another seed's output, an output that ignores an
// input), when float32 itself misses the float64 reference, or when the same forward gives
// different outputs. Results are cached in the workspace per task content, bounds and oracle.
#pragma once
#include <string>
#include <vector>

#include "tasks/oracle.h"

namespace evk {

struct LintFinding {
  std::string check;   // "zeros", "constant", "input copy", "other seed", "input ignored",
                       // "float32", "non-deterministic", "non-finite"
  std::string detail;  // "out.0: an all-zero output passes or nearly (...)"
};

struct LintResult {
  bool ok = false;     // the lint ran; false: error says why (a broken task, a timeout)
  std::string error;
  std::vector<LintFinding> findings;
  double seconds = 0;
  bool degenerate() const { return ok && !findings.empty(); }
  // "zeros, float32 (out.0: ...; ...)": the checks, then the first details.
  std::string summary() const;
};

// Runs (or reuses) the lint of a task; never throws for the task's own faults.
LintResult lint_task(Workspace& ws, const TaskInfo& task, const OracleOptions& opt);

}  // namespace evk
