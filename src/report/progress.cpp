#include "report/progress.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>

#include "report/html.h"

namespace evk {

std::string format_duration(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  long t = std::lround(s);
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
}

// One task's line of progress (a named type: ProgressPrinter::State, which has linkage, holds
// it).
struct TaskProgress {
  int last_idx = 0;
  bool done = false, skipped = false;
  double first_ms = 0, best_ms = 0, eager_ms = 0;
};

struct ProgressPrinter::State {
  ProgressOptions o;
  mutable std::mutex mu;
  double start = 0;
  int task_count = 0, attempts = 0, with_code = 0, compiled = 0;
  int64_t tokens = 0;
  double cost = 0;
  std::map<std::string, TaskProgress> tasks;
  bool line_open = false, finished = false;

  std::ostream& out() { return o.out ? *o.out : std::cout; }
  double now() const { return o.clock(); }

  int solved() const {
    int n = 0;
    for (const auto& [k, t] : tasks) n += t.best_ms > 0;
    return n;
  }

  std::string status() const {
    int done = 0, skipped = 0;
    for (const auto& [k, t] : tasks) done += t.done, skipped += t.skipped;
    int total = std::max(task_count, static_cast<int>(tasks.size()));
    std::string s = fmt::format("tasks {}/{}", done, total);
    if (skipped) s += fmt::format(" ({} skipped)", skipped);
    s += fmt::format(" · {} attempts · solved {}", attempts, solved());
    if (total > skipped) s += fmt::format(" (Acc {:.0f}%)", 100.0 * solved() / (total - skipped));
    if (with_code) s += fmt::format(" · CR {:.0f}%", 100.0 * compiled / with_code);
    std::string best_eager_task, best_first_task;
    double best_eager = 0, best_first = 0;
    for (const auto& [k, t] : tasks) {
      if (!(t.best_ms > 0)) continue;
      if (t.eager_ms > 0 && t.eager_ms / t.best_ms > best_eager)
        best_eager = t.eager_ms / t.best_ms, best_eager_task = k;
      if (t.first_ms / t.best_ms > best_first)
        best_first = t.first_ms / t.best_ms, best_first_task = k;
    }
    if (best_eager > 0)
      s += fmt::format(" · best {} eager ({})", fmt_x(best_eager), best_eager_task);
    if (best_first > 1.0)
      s += fmt::format(", {} over 1st draft ({})", fmt_x(best_first), best_first_task);
    if (tokens) s += fmt::format(" · {} tokens", fmt_count(static_cast<double>(tokens)));
    if (cost > 0) s += fmt::format(" ${:.2f}", cost);
    if (attempts > 0) {
      // Attempts left: the unseen tasks' whole budgets and the rest of each open task's.
      long left = static_cast<long>(std::max(0, total - static_cast<int>(tasks.size()))) * o.budget;
      for (const auto& [k, t] : tasks)
        if (!t.done) left += std::max(0, o.budget - t.last_idx);
      double per_attempt = (now() - start) / attempts;
      s += " · ETA " + format_duration(per_attempt * static_cast<double>(left));
    }
    return s;
  }

  void redraw() {
    if (!o.live) return;
    out() << "\r\x1b[2K" << status() << std::flush;
    line_open = true;
  }
  // A permanent line: above the live status line, or plain. Flushed: an overnight run's log
  // file (stdout not a terminal, so block-buffered) must show each attempt as it ends.
  void print_line(const std::string& line) {
    if (o.live && line_open) out() << "\r\x1b[2K";
    out() << line << "\n" << std::flush;
    line_open = false;
  }
};

ProgressPrinter::ProgressPrinter(ProgressOptions o) : st_(std::make_shared<State>()) {
  if (!o.clock) {
    o.clock = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
  st_->o = std::move(o);
  st_->start = st_->now();
}

void ProgressPrinter::on_event(const std::string& kind, const std::string& task, int task_index,
                               int task_count, const Attempt* a, const std::string& reason) {
  State& s = *st_;
  std::lock_guard lk(s.mu);
  s.task_count = std::max(s.task_count, task_count);
  TaskProgress& t = s.tasks[task];
  if (kind == "attempt" && a) {
    ++s.attempts;
    if (!a->code.empty()) ++s.with_code;
    if (a->verdict.compiled) ++s.compiled;
    s.tokens += a->prompt_tokens + a->completion_tokens;
    s.cost += a->cost_usd;
    t.last_idx = std::max(t.last_idx, a->idx);
    const Verdict& v = a->verdict;
    if (v.eager_ms > 0) t.eager_ms = v.eager_ms;
    if (credited_feasible(*a) && v.latency_ms > 0) {
      if (!(t.first_ms > 0)) t.first_ms = v.latency_ms;
      if (!(t.best_ms > 0) || v.latency_ms < t.best_ms) t.best_ms = v.latency_ms;
    }
    if (!s.o.live) {
      std::string what = v.feasible
                             ? fmt::format("ok {} ({} eager)", fmt_ms(v.latency_ms),
                                           fmt_x(v.eager_ms > 0 ? v.eager_ms / v.latency_ms : 0))
                             : category_name(v.category);
      if (a->audit.audited())
        what += fmt::format(" · audit {}{}", audit_outcome_name(a->audit.outcome),
                            a->audit.withheld ? ", credit withheld" : "");
      s.print_line(fmt::format("[{}/{}] {} {:>2}/{} {:<6} {} | solved {} CR {:.0f}%", task_index,
                               task_count, task, a->idx, s.o.budget, stage_name(a->stage), what,
                               s.solved(), s.with_code ? 100.0 * s.compiled / s.with_code : 0.0));
    }
  } else if (kind == "task_warning") {
    s.print_line(fmt::format("warning [{}/{}] {}: {}", task_index, task_count, task, reason));
  } else if (kind == "task_skipped") {
    t.done = t.skipped = true;
    s.print_line(fmt::format("skipped [{}/{}] {}: {}", task_index, task_count, task, reason));
  } else if (kind == "task_done") {
    t.done = true;
    std::string line =
        t.best_ms > 0 ? fmt::format("done [{}/{}] {}: best {} ({} eager, {} over the first draft)",
                                    task_index, task_count, task, fmt_ms(t.best_ms),
                                    fmt_x(t.eager_ms > 0 ? t.eager_ms / t.best_ms : 0),
                                    fmt_x(t.first_ms / t.best_ms))
                      : fmt::format("done [{}/{}] {}: no feasible kernel in {} attempts",
                                    task_index, task_count, task, t.last_idx);
    s.print_line(line);
  }
  s.redraw();
}

void ProgressPrinter::finish() {
  State& s = *st_;
  std::lock_guard lk(s.mu);
  if (s.finished) return;
  s.finished = true;
  if (s.o.live && s.line_open) s.out() << "\r\x1b[2K" << s.status() << "\n" << std::flush;
  s.line_open = false;
}

std::string ProgressPrinter::status_line() const {
  std::lock_guard lk(st_->mu);
  return st_->status();
}

}  // namespace evk
