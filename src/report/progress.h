// Terminal progress of a run. On a TTY (live = true) one status line is redrawn in place:
//   tasks 3/10 (1 skipped) · 47 attempts · solved 2 (Acc 20%) · CR 91% · best 3.2x eager (relu),
//   5.1x over 1st draft (gelu) · 12.3k tokens $0.04 · ETA 5m12s
// and a permanent line is printed above it each time a task ends. Otherwise (a pipe, a log
// file) it prints one plain line per attempt and per finished task, never control characters.
//
// Plugging it into the agent (AgentEvent has exactly the fields on_event takes):
//   ProgressPrinter p({.live = isatty(1) != 0, .budget = budget});
//   Agent agent(..., [p](const AgentEvent& e) mutable { p(e); });
//   ...; p.finish();
// Copies share one state, so the listener may be copied freely; events may come from several
// threads (calls are serialised inside).
#pragma once
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "run/run_store.h"

namespace evk {

struct ProgressOptions {
  bool live = false;            // redraw a status line (a TTY); else plain lines
  int budget = 30;              // attempts per task, for the ETA
  std::ostream* out = nullptr;  // default std::cout
  std::function<double()> clock;  // seconds; default a steady clock (tests inject their own)
};

class ProgressPrinter {
 public:
  explicit ProgressPrinter(ProgressOptions o);

  // kind: "task_start", "attempt" (attempt non-null), "task_done" or "task_skipped" (reason
  // says why; the task counts as done, and the status line counts the skipped).
  void on_event(const std::string& kind, const std::string& task, int task_index, int task_count,
                const Attempt* attempt, const std::string& reason = "");
  template <class Event>
  void operator()(const Event& e) {
    on_event(e.kind, e.task, e.task_index, e.task_count, e.attempt, e.reason);
  }
  // Ends the live line (prints the last status and a newline). Idempotent.
  void finish();

  // The status line as it stands (no control characters).
  std::string status_line() const;

 private:
  struct State;
  std::shared_ptr<State> st_;
};

// "45s", "5m12s", "2h03m".
std::string format_duration(double seconds);

}  // namespace evk
