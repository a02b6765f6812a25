#include "report/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace evk {

static Spread spread(std::vector<double> v) {
  Spread s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {  // linear interpolation between closest ranks
    double pos = q * static_cast<double>(v.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  s.median = at(0.5);
  s.q1 = at(0.25);
  s.q3 = at(0.75);
  return s;
}

static const double kPs[] = {0, 0.5, 0.8, 1, 1.5, 2};

static void count_audit(const Attempt& a, AuditCounts& c, TaskResult& r) {
  const Audit& x = a.audit;
  if (!x.audited()) return;
  ++c.audited;
  ++r.audited;
  c.clean += x.outcome == AuditOutcome::Clean;
  c.suspicious += x.outcome == AuditOutcome::Suspicious;
  c.unparsed += x.outcome == AuditOutcome::Unparsed;
  c.failed += x.outcome == AuditOutcome::Failed;
  c.withheld += x.withheld;
  r.withheld += x.withheld;
  c.calls += x.calls;
  c.prompt_tokens += x.prompt_tokens;
  c.completion_tokens += x.completion_tokens;
}

Metrics compute_metrics(const std::vector<TaskRecord>& tasks, const std::vector<Attempt>& attempts,
                        int budget, const std::vector<int>& levels) {
  Metrics m;
  auto in_levels = [&](int level) {
    return levels.empty() || std::find(levels.begin(), levels.end(), level) != levels.end();
  };
  std::vector<double> over_first, to_first, log_eager;
  int fast1_r1 = 0, solved_r1 = 0;
  std::vector<int> solved_at(static_cast<size_t>(std::max(budget, 1)) + 1, 0);
  for (const auto& t : tasks) {
    if (!in_levels(t.level)) continue;
    if (!t.skipped.empty()) {
      m.skipped[t.task] = t.skipped;
      continue;
    }
    TaskResult r;
    r.task = t.task;
    r.level = t.level;
    r.eager_ms = t.eager_ms;
    r.fitted = t.fitted;
    for (const auto& a : attempts) {
      if (a.task != t.task) continue;
      ++r.attempts;
      ++m.attempts;
      m.tokens += a.prompt_tokens + a.completion_tokens;
      m.cost_usd += a.cost_usd;
      // An infra verdict says nothing about the code: it is not a compilation to count.
      if (!a.code.empty() && !is_infra(a.verdict.category)) ++m.with_code;
      if (a.verdict.compiled && !is_infra(a.verdict.category)) ++m.compiled;
      count_audit(a, m.audit, r);
      if (!a.verdict.feasible) {
        ++m.failures[a.verdict.category];
        continue;
      }
      if (!credited_feasible(a)) continue;  // counted in m.audit.withheld
      if (!r.first_feasible_idx) {
        r.first_feasible_idx = a.idx;
        r.first_ms = a.verdict.latency_ms;
      }
      // The credited latency: a speed-up an interleaved re-timing did not confirm is no
      // speed-up (verify/confirm.h).
      if (!r.best_ms || credited_ms(a.verdict) < r.best_ms) {
        r.best_ms = credited_ms(a.verdict);
        r.best_attempt = a.id;
        r.roofline_fraction = a.verdict.roofline_fraction;
      }
      if (a.idx == 1) {
        ++solved_r1;
        if (t.eager_ms / a.verdict.latency_ms > 1) ++fast1_r1;
      }
    }
    r.solved = r.first_feasible_idx > 0;
    ++m.tasks;
    if (r.solved) {
      ++m.solved;
      over_first.push_back(r.first_ms / r.best_ms);
      to_first.push_back(r.first_feasible_idx);
      log_eager.push_back(std::log(r.eager_ms / r.best_ms));
      for (int k = r.first_feasible_idx; k < static_cast<int>(solved_at.size()); ++k)
        ++solved_at[static_cast<size_t>(k)];
      for (double p : kPs)
        if (r.eager_ms / r.best_ms > p) m.fast_p[p] += 1;
    }
    m.per_task.push_back(r);
  }
  double n = std::max(m.tasks, 1);
  m.acc = m.solved / n;
  m.compilation_rate = m.with_code ? static_cast<double>(m.compiled) / m.with_code : 0;
  for (double p : kPs) m.fast_p[p] /= n;
  m.fast1_ratio = m.acc > 0 ? m.fast_p[1] / m.acc : 0;
  m.speedup_over_first = spread(over_first);
  m.attempts_to_first = spread(to_first);
  if (!log_eager.empty()) {
    double s = 0;
    for (double x : log_eager) s += x;
    m.geomean_over_eager = std::exp(s / static_cast<double>(log_eager.size()));
  }
  m.acc_round1 = solved_r1 / n;
  m.fast1_round1 = fast1_r1 / n;
  if (m.solved) {
    m.tokens_per_solved = static_cast<double>(m.tokens) / m.solved;
    m.cost_per_solved = m.cost_usd / m.solved;
  }
  for (int k = 1; k <= budget; ++k) m.acc_curve.push_back(solved_at[static_cast<size_t>(k)] / n);
  return m;
}

static nlohmann::json failure_counts(const std::map<Category, int>& failures) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [c, n] : failures) j[category_name(c)] = n;
  return j;
}

nlohmann::json to_json(const Metrics& m) {
  nlohmann::json fp = nlohmann::json::object();
  for (const auto& [p, v] : m.fast_p) fp[fmt::format("{}", p)] = v;
  auto sp = [](const Spread& s) {
    return nlohmann::json{{"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"n", s.n}};
  };
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : m.per_task)
    tasks.push_back({{"task", t.task},
                     {"level", t.level},
                     {"solved", t.solved},
                     {"attempts", t.attempts},
                     {"first_feasible_attempt", t.first_feasible_idx},
                     {"eager_ms", t.eager_ms},
                     {"first_ms", t.first_ms},
                     {"best_ms", t.best_ms},
                     {"best_attempt_id", t.best_attempt},
                     {"roofline_fraction", t.roofline_fraction},
                     {"fitted", t.fitted},
                     {"audited", t.audited},
                     {"withheld", t.withheld}});
  const AuditCounts& a = m.audit;
  const nlohmann::json audit = {{"audited", a.audited},
                                {"clean", a.clean},
                                {"suspicious", a.suspicious},
                                {"unparsed", a.unparsed},
                                {"failed", a.failed},
                                {"withheld", a.withheld},
                                {"calls", a.calls},
                                {"prompt_tokens", a.prompt_tokens},
                                {"completion_tokens", a.completion_tokens}};
  return {{"tasks", m.tasks},
          {"solved", m.solved},
          {"attempts", m.attempts},
          {"compilation_rate", m.compilation_rate},
          {"acc", m.acc},
          {"fast_p", fp},
          {"fast1_ratio", m.fast1_ratio},
          {"speedup_over_first_draft", sp(m.speedup_over_first)},
          {"geomean_speedup_over_eager", m.geomean_over_eager},
          {"acc_round1", m.acc_round1},
          {"fast1_round1", m.fast1_round1},
          {"attempts_to_first_feasible", sp(m.attempts_to_first)},
          {"tokens", m.tokens},
          {"cost_usd", m.cost_usd},
          {"tokens_per_solved", m.tokens_per_solved},
          {"cost_per_solved", m.cost_per_solved},
          {"acc_curve", m.acc_curve},
          {"failures", failure_counts(m.failures)},
          {"audit", audit},
          {"skipped", m.skipped},
          {"per_task", tasks}};
}

std::string format_metrics(const Metrics& m, const std::string& title) {
  std::string s = title + "\n";
  s += fmt::format("  tasks {}  solved {}  attempts {}\n", m.tasks, m.solved, m.attempts);
  s += fmt::format("  compilation rate       {:6.1f}%\n", 100 * m.compilation_rate);
  s += fmt::format("  correctness (Acc)      {:6.1f}%   (after attempt 1: {:.1f}%)\n", 100 * m.acc,
                   100 * m.acc_round1);
  s += "  fast_p vs PyTorch eager";
  for (const auto& [p, v] : m.fast_p) s += fmt::format("  p={}: {:.1f}%", p, 100 * v);
  s += fmt::format("\n  Fast1 ratio            {:6.1f}%   (fast_1 after attempt 1: {:.1f}%)\n",
                   100 * m.fast1_ratio, 100 * m.fast1_round1);
  s += fmt::format("  speed-up over first draft  median {:.2f}x  IQR {:.2f}-{:.2f}x  (n={})\n",
                   m.speedup_over_first.median, m.speedup_over_first.q1, m.speedup_over_first.q3,
                   m.speedup_over_first.n);
  s += fmt::format("  geomean speed-up over eager (solved)  {:.2f}x\n", m.geomean_over_eager);
  s += fmt::format("  attempts to first feasible  median {:.1f}  IQR {:.1f}-{:.1f}\n",
                   m.attempts_to_first.median, m.attempts_to_first.q1, m.attempts_to_first.q3);
  s += fmt::format("  tokens {}  cost ${:.4f}  per solved task: {:.0f} tokens, ${:.4f}\n", m.tokens,
                   m.cost_usd, m.tokens_per_solved, m.cost_per_solved);
  s += "  Acc after attempt k:";
  for (size_t k = 0; k < m.acc_curve.size(); ++k) {
    if (k % 10 == 0) s += fmt::format("\n    {:>3}:", k + 1);
    s += fmt::format(" {:.2f}", m.acc_curve[k]);
  }
  s += "\n  failures:";
  for (const auto& [c, n] : m.failures) s += fmt::format(" {}={}", category_name(c), n);
  s += "\n";
  if (const AuditCounts& a = m.audit; a.audited)
    s += fmt::format(
        "  model auditor: {} reviewed ({} calls, {} tokens): {} clean, {} suspicious, {} "
        "unparsed, {} failed; credit withheld from {}\n",
        a.audited, a.calls, a.prompt_tokens + a.completion_tokens, a.clean, a.suspicious,
        a.unparsed, a.failed, a.withheld);
  if (!m.skipped.empty()) {
    s += fmt::format("  skipped {} task(s), not in the figures above:\n", m.skipped.size());
    for (const auto& [task, why] : m.skipped) s += fmt::format("    {}: {}\n", task, why);
  }
  return s;
}

}  // namespace evk
