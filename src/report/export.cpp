#include "report/export.h"

#include <fmt/format.h>

#include "backends/backend.h"
#include "core/error.h"
#include "core/paths.h"
#include "report/html.h"
#include "tasks/baseline.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double ratio(double num, double den) {
  return num > 0 && den > 0 ? num / den : 0;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string num(double v) {
  return fmt::format("{:.6g}", v);
}

json run_json(const RunInfo& r) {
  const json baseline = run_baseline(r);
  return {{"id", r.id},
          {"method", r.method},
          {"model", r.model},
          {"simulated", r.simulated},
          {"suite", r.suite},
          {"backend", r.backend},
          {"budget", r.budget},
          {"seed", r.seed},
          {"status", r.status},
          {"created", r.created},
          {"baseline", baseline},
          {"slow_baseline", baseline_slow(baseline)},
          {"builds", run_builds(r)}};
}

// The eager baseline's columns of a CSV row (tasks/baseline.h): beside every speed-up over
// eager, what eager was. Empty fields for a run from before it was recorded.
const char* const kBaselineColumns =
    "eager_torch,eager_blas,eager_threads,eager_cpu_capability,slow_baseline";

std::string baseline_fields(const RunInfo& r) {
  const json b = run_baseline(r);
  if (!b.is_object()) return ",,,,0";
  return fmt::format("{},{},{},{},{}", csv_field(b.value("torch_version", "")),
                     csv_field(b.value("blas_name", "")), b.value("threads", 0),
                     csv_field(b.value("cpu_capability", "")), baseline_slow(b) ? 1 : 0);
}

std::string verdict_text(const Verdict& v) {
  std::string s;
  for (const auto& g : v.gates)
    s += fmt::format("  {} {:<13} {}\n", g.passed ? "pass" : "FAIL", gate_name(g.gate), g.detail);
  if (v.gates.empty())
    s += fmt::format("  {} (gate {}: {})\n", v.feasible ? "feasible" : "infeasible",
                     gate_name(v.gate), category_name(v.category));
  return s;
}

}  // namespace

std::string kernel_file_name(const std::string& task, const std::string& backend) {
  std::string s;
  for (char c : task)
    s +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s + fs::path(make_backend(backend)->source_filename()).extension().string();
}

std::string format_show(const RunData& run, const std::string& task, bool* found) {
  const TaskRecord& rec = task_record(run, task);
  const Attempt* best = best_attempt(run, task);
  const Attempt* first = first_feasible(run, task);
  if (found) *found = best != nullptr;
  std::string s = fmt::format("{} · task {} (level {}){}\n", run_label(run.info), task, rec.level,
                              rec.fitted ? " · shapes fitted to --max-elements" : "");
  if (run.info.simulated) s += std::string(kSimulatedNote) + "\n";
  if (auto b = run_builds(run.info); !b.empty()) s += "build: " + join_builds(b) + "\n";
  int n = 0;
  const Attempt* last = nullptr;
  for (const auto& a : run.attempts)
    if (a.task == task) {
      ++n;
      if (!last || a.idx > last->idx) last = &a;
    }
  if (!best) {
    s += fmt::format("no feasible kernel in {} attempt(s)", n);
    if (!last) return s + "\n";
    s += fmt::format("; last attempt {} ({}) failed: {}\n", last->idx, stage_name(last->stage),
                     category_name(last->verdict.category));
    s += verdict_text(last->verdict);
    if (!last->verdict.feedback.empty()) s += "feedback:\n" + last->verdict.feedback + "\n";
    return s + "\n" + last->code + (last->code.empty() || last->code.back() == '\n' ? "" : "\n");
  }
  const Verdict& v = best->verdict;
  double eager = rec.eager_ms > 0 ? rec.eager_ms : v.eager_ms;
  s += fmt::format("best kernel: attempt {} of {} ({}), first feasible at attempt {}\n", best->idx,
                   n, stage_name(best->stage), first->idx);
  s += verdict_text(v);
  s += fmt::format("latency  {} (IQR {}, {} timed calls)\n", fmt_ms(v.latency_ms),
                   fmt_ms(v.latency_iqr_ms), v.timed_calls);
  s += fmt::format("eager    {}   speed-up over eager {}   over first draft {}\n", fmt_ms(eager),
                   fmt_x(ratio(eager, v.latency_ms)),
                   fmt_x(ratio(first->verdict.latency_ms, v.latency_ms)));
  if (std::string basis = v.metrics.value("eager_basis", ""); !basis.empty())
    s += "         modeled eager: " + basis + "\n";
  s += "         " + run_baseline_line(run.info) + "\n";
  s += fmt::format("achieved {:.2f} GB/s, {:.2f} GFLOP/s, {} of the roofline\n", v.gbps, v.gflops,
                   fmt_pct(v.roofline_fraction));
  if (!v.diagnosis.empty()) s += "diagnosis " + render_diagnosis(v.diagnosis);
  if (best->audit.audited()) s += audit_line(best->audit) + "\n";
  s += "\n" + best->code + (best->code.empty() || best->code.back() == '\n' ? "" : "\n");
  return s;
}

json manifest_json(const RunData& run) {
  json tasks = json::array();
  for (const auto& t : run.overall.per_task) {
    const Attempt* best = best_attempt(run, t.task);
    json e = {{"task", t.task},     {"level", t.level},       {"fitted", t.fitted},
              {"solved", t.solved}, {"attempts", t.attempts}, {"eager_ms", t.eager_ms}};
    if (best) {
      e["file"] = kernel_file_name(t.task, run.info.backend);
      e["attempt"] = best->idx;
      e["stage"] = stage_name(best->stage);
      e["latency_ms"] = best->verdict.latency_ms;
      e["first_draft_ms"] = t.first_ms;
      e["speedup_over_first_draft"] = ratio(t.first_ms, t.best_ms);
      e["speedup_over_eager"] = ratio(t.eager_ms, t.best_ms);
      e["roofline_fraction"] = best->verdict.roofline_fraction;
      e["bound"] = bound_name(best->verdict.diagnosis.bound);
      e["verdict"] = to_json(best->verdict);
      if (best->audit.audited()) e["audit"] = to_json(best->audit);
    }
    e["audited"] = t.audited;
    e["withheld"] = t.withheld;
    tasks.push_back(std::move(e));
  }
  json j = {{"format", "evokernel-export"},
            {"version", 1},
            {"run", run_json(run.info)},
            {"tasks", tasks}};
  if (run.info.simulated) j["note"] = kSimulatedNote;
  return j;
}

json metrics_json(const RunData& run) {
  json j = {{"run", run_json(run.info)}, {"overall", to_json(run.overall)}};
  j["levels"] = json::object();
  for (const auto& [l, m] : run.by_level) j["levels"][std::to_string(l)] = to_json(m);
  return j;
}

std::string metrics_csv(const RunData& run) {
  std::string s =
      "run,method,model,simulated,scope,tasks,solved,attempts,compilation_rate,acc,acc_round1,"
      "fast_0,fast_0.5,fast_0.8,fast_1,fast_1.5,fast_2,fast1_ratio,speedup_over_first_median,"
      "speedup_over_first_q1,speedup_over_first_q3,geomean_speedup_over_eager,"
      "attempts_to_first_median,tokens,cost_usd," +
      std::string(kBaselineColumns) + "\n";
  auto row = [&](const std::string& scope, const Metrics& m) {
    auto fp = [&](double p) { return num(m.fast_p.count(p) ? m.fast_p.at(p) : 0); };
    s += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        run.info.id, csv_field(run.info.method), csv_field(run.info.model),
        run.info.simulated ? 1 : 0, scope, m.tasks, m.solved, m.attempts, num(m.compilation_rate),
        num(m.acc), num(m.acc_round1), fp(0), fp(0.5), fp(0.8), fp(1), fp(1.5), fp(2),
        num(m.fast1_ratio), num(m.speedup_over_first.median), num(m.speedup_over_first.q1),
        num(m.speedup_over_first.q3), num(m.geomean_over_eager), num(m.attempts_to_first.median),
        m.tokens, num(m.cost_usd), baseline_fields(run.info));
  };
  for (const auto& [l, m] : run.by_level) row(fmt::format("level{}", l), m);
  row("overall", run.overall);
  return s;
}

std::string tasks_csv(const RunData& run) {
  std::string s =
      "task,level,fitted,solved,attempts,first_feasible_attempt,eager_ms,first_draft_ms,best_ms,"
      "speedup_over_first_draft,speedup_over_eager,roofline_fraction," +
      std::string(kBaselineColumns) + "\n";
  const std::string baseline = baseline_fields(run.info);
  for (const auto& t : run.overall.per_task)
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(t.task), t.level,
                     t.fitted ? 1 : 0, t.solved ? 1 : 0, t.attempts, t.first_feasible_idx,
                     num(t.eager_ms), num(t.first_ms), num(t.best_ms),
                     num(ratio(t.first_ms, t.best_ms)), num(ratio(t.eager_ms, t.best_ms)),
                     num(t.roofline_fraction), baseline);
  return s;
}

int export_run(const RunData& run, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw UsageError(fmt::format("cannot create export folder {}: {}", dir.string(),
                                 ec ? ec.message() : "a file of that name exists"));
  int kernels = 0;
  for (const auto& t : run.overall.per_task)
    if (const Attempt* best = best_attempt(run, t.task)) {
      write_file_atomic(dir / kernel_file_name(t.task, run.info.backend), best->code);
      ++kernels;
    }
  write_file_atomic(dir / "manifest.json", manifest_json(run).dump(2) + "\n");
  write_file_atomic(dir / "metrics.json", metrics_json(run).dump(2) + "\n");
  write_file_atomic(dir / "metrics.csv", metrics_csv(run));
  write_file_atomic(dir / "tasks.csv", tasks_csv(run));
  return kernels;
}

}  // namespace evk
