#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include "report/html.h"
#include "report/svg.h"
#include "tasks/baseline.h"

namespace evk {
namespace {

const char* kStyle = R"CSS(
:root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#f8fafc;--card:#fff;--accent:#2563eb;
--ok:#15803d;--bad:#b91c1c;--warn:#b45309}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",Arial,sans-serif}
code,pre{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace}
.wrap{max-width:1180px;margin:0 auto;padding:0 24px}
header.top{background:#0f172a;color:#f1f5f9;padding:22px 0 18px}
header.top h1{margin:0;font-size:24px;font-weight:650;letter-spacing:-.01em}
header.top .sub{margin:4px 0 0;color:#cbd5e1;font-size:14px}
header.top .runs{margin:10px 0 0;display:flex;flex-wrap:wrap;gap:8px}
.chip{display:inline-block;padding:2px 10px;border-radius:999px;background:#1e293b;
border:1px solid #334155;font-size:13px;color:#e2e8f0}
nav.toc{margin-top:12px;font-size:13px}
nav.toc a{color:#93c5fd;text-decoration:none;margin-right:14px}
.sim{display:inline-block;background:#f59e0b;color:#1f1300;font-weight:700;font-size:11px;
letter-spacing:.06em;padding:1px 7px;border-radius:4px;vertical-align:middle;margin-left:6px}
.banner{margin:18px 0 0;padding:12px 16px;border-radius:8px;background:#fffbeb;
border:1px solid #fcd34d;color:#78350f}
.banner strong{letter-spacing:.04em}
section{margin:26px 0}
h2{font-size:19px;margin:0 0 4px;font-weight:650}
h3{font-size:15px;margin:18px 0 6px;font-weight:650}
p.lead{margin:0 0 12px;color:var(--muted);font-size:14px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:16px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px}
.card h3{margin:0 0 2px}
.card .meta{color:var(--muted);font-size:13px;margin-bottom:10px}
.tiles{display:grid;grid-template-columns:repeat(3,1fr);gap:10px}
.tile .v{font-size:22px;font-weight:650;line-height:1.2}
.tile .k{font-size:12px;color:var(--muted)}
.tile .v small{font-size:13px;color:var(--muted);font-weight:500}
table{border-collapse:collapse;width:100%;background:var(--card);font-size:13.5px}
.tablebox{border:1px solid var(--line);border-radius:10px;overflow:hidden;overflow-x:auto}
th,td{padding:6px 10px;text-align:left;border-bottom:1px solid var(--line);vertical-align:top}
th{background:#f1f5f9;font-weight:600;font-size:12.5px;color:#334155;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.overall td{font-weight:650;background:#f8fafc}
td.runcell{background:#fff;border-right:1px solid var(--line);font-weight:400;max-width:190px;
overflow-wrap:anywhere}
table.summary th,table.summary td{padding:6px 8px}
td.nw{white-space:nowrap}
.charts2{margin-top:14px}
tr:last-child td{border-bottom:none}
td .tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:4px;margin-left:6px;
background:#e0e7ff;color:#3730a3}
.ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}
.muted{color:var(--muted)}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:16px}
.panel{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px 12px}
svg.chart{width:100%;height:auto;display:block}
svg text{fill:#374151}
svg .ttl{font-weight:650;font-size:13px;fill:#111827}
svg .tk{font-size:11px;fill:#6b7280}
svg .axl{font-size:12px;fill:#4b5563}
svg .lg{font-size:12px}
svg .val{font-size:10.5px;fill:#374151}
svg .nodata{font-size:13px;fill:#9ca3af}
svg .grid{stroke:#eef0f3;stroke-width:1}
svg .axis{stroke:#9ca3af;stroke-width:1}
svg .zero{stroke:#9ca3af;stroke-width:1;stroke-dasharray:3 3}
svg.spark{vertical-align:middle}
tr.code td{background:#fbfcfe;padding:0 10px 6px}
details summary{cursor:pointer;color:var(--accent);font-size:13px;padding:4px 0}
details pre{margin:6px 0 8px;padding:10px 12px;background:#0f172a;color:#e2e8f0;border-radius:8px;
overflow:auto;max-height:520px;font-size:12.5px;line-height:1.45}
details .fb{background:#fef2f2;color:#7f1d1d}
footer{margin:36px 0 40px;color:var(--muted);font-size:13px;border-top:1px solid var(--line);
padding-top:12px}
footer li{margin:3px 0}
)CSS";

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

std::string sim_badge(const RunInfo& r) {
  return r.simulated
             ? "<span class=\"sim\" title=\"offline sim coder, not an LLM\">SIMULATED</span>"
             : "";
}

// The name of a run in tables and headings (HTML, escaped, with the badge).
std::string run_name_html(const RunInfo& r) {
  return fmt::format("run {} <span class=\"muted\">{} · {}</span>{}", r.id, html_escape(r.method),
                     html_escape(r.model), sim_badge(r));
}
// The name of a run in chart legends (plain text).
std::string run_name_text(const RunInfo& r) {
  return fmt::format("run {} {} ({}){}", r.id, r.method, r.model, r.simulated ? " SIMULATED" : "");
}

std::string iqr(const Spread& s) {
  if (!s.n) return "-";
  return fmt::format("{} <span class=\"muted\">({}–{})</span>", fmt_x(s.median), fmt_x(s.q1),
                     fmt_x(s.q3));
}

double speedup(double base, double ms) {
  return base > 0 && ms > 0 ? base / ms : 0;
}

// ---- header ----

std::string header(const std::vector<RunData>& runs, const ReportOptions& opt) {
  const RunInfo& r0 = runs.front().info;
  std::string title =
      runs.size() == 1
          ? fmt::format("EvoKernel report — run {}", r0.id)
          : fmt::format("EvoKernel report — run {} compared with {}", r0.id,
                        runs.size() - 1 == 1 ? fmt::format("run {}", runs[1].info.id)
                                             : fmt::format("{} runs", runs.size() - 1));
  std::string out = "<header class=\"top\"><div class=\"wrap\"><h1>" + html_escape(title) + "</h1>";
  out += fmt::format(
      "<p class=\"sub\">suite {} · backend {} · budget {} attempts per task · "
      "generated {}</p><div class=\"runs\">",
      html_escape(r0.suite), html_escape(r0.backend), r0.budget,
      html_escape(opt.generated.empty() ? now_utc() : opt.generated));
  for (const auto& r : runs)
    out +=
        fmt::format("<span class=\"chip\">run {} · {} · {} · seed {} · {} · {}{}</span>", r.info.id,
                    html_escape(r.info.method), html_escape(r.info.model), r.info.seed,
                    run_status_name(r.info.status), html_escape(r.info.created), sim_badge(r.info));
  out +=
      "</div><nav class=\"toc\"><a href=\"#summary\">Summary</a><a href=\"#progress\">Progress"
      "</a><a href=\"#speedups\">Speed-ups</a><a href=\"#failures\">Failures</a><a "
      "href=\"#memory\">Memory</a><a href=\"#tasks\">Tasks</a></nav></div></header>";
  return out;
}

std::string banners(const std::vector<RunData>& runs) {
  std::string out;
  for (const auto& r : runs)
    if (auto b = run_builds(r.info); b.size() > 1)
      out += fmt::format(
          "<div class=\"banner\" id=\"builds-{}\"><strong>RESUMED BY ANOTHER BUILD</strong> — "
          "run {} was made by {}: its attempts were verified by more than one build.</div>",
          r.info.id, r.info.id, html_escape(join_builds(b)));
  for (const auto& r : runs)
    if (r.info.simulated)
      out += fmt::format(
          "<div class=\"banner\" id=\"simulated-{}\"><strong>SIMULATED</strong> — run {} used "
          "model <code>{}</code>, the offline sim coder, not an LLM. Its kernels are real and "
          "really verified and timed, but who wrote them is a stochastic program generator: "
          "read its numbers as a study of the system's learning dynamics, not of a model.</div>",
          r.info.id, r.info.id, html_escape(r.info.model));
  for (const auto& r : runs)
    if (baseline_slow(run_baseline(r.info)))
      out += fmt::format(
          "<div class=\"banner\" id=\"slow-baseline-{}\"><strong>SLOW BASELINE</strong> — run "
          "{} was let through by <code>--allow-slow-baseline</code>: PyTorch eager ran its GEMMs "
          "far below this machine's FMA peak, so its speed-ups over eager on tasks with a matmul "
          "are inflated. {}</div>",
          r.info.id, r.info.id, html_escape(run_baseline_line(r.info)));
  return out;
}

// ---- summary ----

std::string tile(const std::string& value, const std::string& key) {
  return fmt::format("<div class=\"tile\"><div class=\"v\">{}</div><div class=\"k\">{}</div></div>",
                     value, key);
}

std::string run_card(const RunData& r) {
  const Metrics& m = r.overall;
  int fitted = 0;
  for (const auto& t : r.tasks) fitted += t.fitted;
  std::string out = fmt::format(
      "<div class=\"card\"><h3>{}</h3><div class=\"meta\">{} · {} task(s){}{} · {} attempts · "
      "status {}</div><div class=\"tiles\">",
      run_name_html(r.info), html_escape(r.info.suite), m.tasks,
      fitted ? fmt::format(" ({} fitted)", fitted) : "",
      m.skipped.empty() ? "" : fmt::format(" · {} skipped", m.skipped.size()), m.attempts,
      run_status_name(r.info.status));
  out += tile(fmt::format("{}<small> / {}</small>", m.solved, m.tasks),
              "tasks solved (Acc " + fmt_pct(m.acc) + ")");
  out += tile(fmt_pct(m.compilation_rate), "compilation rate");
  out +=
      tile(fmt_pct(m.fast_p.count(1) ? m.fast_p.at(1) : 0), "fast<sub>1</sub>: faster than eager");
  out += tile(m.speedup_over_first.n ? fmt_x(m.speedup_over_first.median) : "-",
              "median speed-up over first draft");
  out += tile(m.solved ? fmt_x(m.geomean_over_eager) : "-", "geomean speed-up over eager");
  out += tile(fmt_count(static_cast<double>(m.tokens)) +
                  (m.cost_usd > 0 ? fmt::format("<small> ${:.2f}</small>", m.cost_usd) : ""),
              "tokens (cost)");
  return out + "</div><div class=\"meta baseline\">" + html_escape(run_baseline_line(r.info)) +
         "</div></div>";
}

std::string summary_row(const RunInfo& info, int rowspan, const std::string& scope,
                        const Metrics& m, bool overall) {
  auto fp = [&](double p) { return fmt_pct(m.fast_p.count(p) ? m.fast_p.at(p) : 0); };
  return fmt::format(
      "<tr{}>{}<td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
      "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
      "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
      "</tr>",
      overall ? " class=\"overall\"" : "",
      rowspan ? fmt::format("<td rowspan=\"{}\" class=\"runcell\"><strong>run {}</strong><br>"
                            "<span class=\"muted\">{}<br>{}<br>{}</span>{}</td>",
                            rowspan, info.id, html_escape(info.method), html_escape(info.model),
                            html_escape(join_builds(run_builds(info))),
                            info.simulated ? "<br>" + sim_badge(info) : "")
              : "",
      html_escape(scope), fmt::format("{}/{}", m.solved, m.tasks), fmt_pct(m.compilation_rate),
      fmt_pct(m.acc), fmt_pct(m.acc_round1), fp(1), fp(1.5), fp(2), iqr(m.speedup_over_first),
      m.solved ? fmt_x(m.geomean_over_eager) : "-",
      m.attempts_to_first.n ? fmt::format("{:.1f}", m.attempts_to_first.median) : "-");
}

std::string summary(const std::vector<RunData>& runs) {
  std::string out =
      "<section id=\"summary\"><h2>Summary</h2><p class=\"lead\">Acc = share of tasks with a "
      "kernel that passed every gate within the budget; CR = share of generated kernels that "
      "compiled; fast<sub>p</sub> = share of all tasks correct and more than p× faster than "
      "PyTorch eager; speed-up over the first draft = first feasible latency / best latency "
      "(median and IQR over solved tasks).</p><div class=\"cards\">";
  for (const auto& r : runs) out += run_card(r);
  out +=
      "</div><h3>Metrics per level</h3><div class=\"tablebox\"><table class=\"summary\">"
      "<thead><tr><th>Run</th><th>Scope</th><th class=\"n\">Solved</th><th class=\"n\">CR</th>"
      "<th class=\"n\">Acc</th><th class=\"n\">Acc@1</th><th class=\"n\">fast<sub>1</sub></th>"
      "<th class=\"n\">fast<sub>1.5</sub></th><th class=\"n\">fast<sub>2</sub></th>"
      "<th class=\"n\">× first draft (IQR)</th><th class=\"n\">geomean × eager</th>"
      "<th class=\"n\">attempts to 1st</th></tr></thead><tbody>";
  for (const auto& r : runs) {
    int rows = 1 + (r.by_level.size() > 1 ? static_cast<int>(r.by_level.size()) : 0);
    if (r.by_level.size() > 1)
      for (const auto& [level, m] : r.by_level) {
        out += summary_row(r.info, rows, fmt::format("level {}", level), m, false);
        rows = 0;
      }
    out += summary_row(r.info, rows, "overall", r.overall, true);
  }
  return out + "</tbody></table></div></section>";
}

// ---- charts ----

std::string progress(const std::vector<RunData>& runs) {
  svg::LineChart acc;
  acc.title = "Acc after each attempt";
  acc.x_label = "attempts per task";
  acc.y_label = "tasks solved";
  acc.y_percent = true;
  acc.y_min = 0;
  acc.y_max = 1;
  int budget = 1;
  for (const auto& r : runs) {
    svg::Series s;
    s.name = run_name_text(r.info);
    s.points.push_back({0, 0});
    for (size_t k = 0; k < r.overall.acc_curve.size(); ++k)
      s.points.push_back({static_cast<double>(k + 1), r.overall.acc_curve[k]});
    s.step = true;
    budget = std::max(budget, r.info.budget);
    acc.series.push_back(std::move(s));
  }
  acc.x_min = 0;
  acc.x_max = budget;

  svg::BarChart fast;
  fast.title = "fast_p: tasks correct and more than p× faster than eager";
  fast.x_label = "p";
  fast.y_label = "share of all tasks";
  fast.y_percent = true;
  std::set<double> ps;
  for (const auto& r : runs)
    for (const auto& [p, v] : r.overall.fast_p) ps.insert(p);
  for (double p : ps) fast.categories.push_back(fmt::format("p={}", p));
  for (const auto& r : runs) {
    std::vector<double> vals;
    for (double p : ps) vals.push_back(r.overall.fast_p.count(p) ? r.overall.fast_p.at(p) : 0);
    fast.series.push_back({run_name_text(r.info), vals});
  }
  return "<section id=\"progress\"><h2>Progress over the budget</h2><p class=\"lead\">How "
         "quickly tasks got their first feasible kernel, and how many ended faster than "
         "PyTorch eager.</p><div class=\"grid2\"><div class=\"panel\">" +
         svg::line_chart(acc) + "</div><div class=\"panel\">" + svg::bar_chart(fast) +
         "</div></div></section>";
}

std::string speedups(const std::vector<RunData>& runs) {
  svg::Histogram first;
  first.title = "Best kernel vs first feasible draft";
  first.x_label = "speed-up over the first draft";
  first.edges = {1, 1.1, 1.5, 2, 3, 5, 10, 1e300};
  first.unit = "x";
  svg::Histogram eager;
  eager.title = "Best kernel vs PyTorch eager";
  eager.x_label = "speed-up over eager (below 1: slower)";
  eager.edges = {0, 0.25, 0.5, 0.8, 1, 1.5, 2, 4, 8, 1e300};
  eager.unit = "x";
  for (const auto& r : runs) {
    std::vector<double> f, e;
    for (const auto& t : r.overall.per_task) {
      if (!t.solved) continue;
      f.push_back(speedup(t.first_ms, t.best_ms));
      if (t.eager_ms > 0) e.push_back(speedup(t.eager_ms, t.best_ms));
    }
    first.samples.push_back({run_name_text(r.info), f});
    eager.samples.push_back({run_name_text(r.info), e});
  }
  return "<section id=\"speedups\"><h2>Speed-ups</h2><p class=\"lead\">Solved tasks only. "
         "Refining starts from the first feasible draft; eager is PyTorch float32 timed with "
         "allocator reuse, on the same thread count as the kernels.</p><div class=\"grid2\">"
         "<div class=\"panel\">" +
         svg::histogram(first) + "</div><div class=\"panel\">" + svg::histogram(eager) +
         "</div></div></section>";
}

std::string category_label(Category c) {
  switch (c) {
    case Category::NoCode:
      return "no code";
    case Category::HackStatic:
      return "static hack";
    case Category::RuntimeCrash:
      return "crash";
    case Category::HackDynamic:
      return "dynamic hack";
    case Category::TooFast:
      return "too fast";
    case Category::NoDevice:
      return "no device";
    default:
      return category_name(c);
  }
}

std::string failures(const std::vector<RunData>& runs) {
  std::set<Category> seen;  // in the enum's order: the order the gates run
  for (const auto& r : runs)
    for (const auto& [c, n] : r.overall.failures) seen.insert(c);
  std::vector<Category> cats(seen.begin(), seen.end());
  svg::BarChart b;
  b.title = "Failed attempts by the gate that stopped them";
  b.y_label = "attempts";
  b.integer_y = true;
  for (Category c : cats) b.categories.push_back(category_label(c));
  for (const auto& r : runs) {
    std::vector<double> vals;
    for (Category c : cats)
      vals.push_back(r.overall.failures.count(c) ? r.overall.failures.at(c) : 0);
    b.series.push_back({run_name_text(r.info), vals});
  }
  std::string table =
      "<div class=\"tablebox\"><table><thead><tr><th>Run</th><th class=\"n\">attempts</th>"
      "<th class=\"n\">failed</th><th>most frequent</th></tr></thead><tbody>";
  for (const auto& r : runs) {
    int failed = 0;
    std::string top = "-";
    int top_n = 0;
    for (const auto& [c, n] : r.overall.failures) {
      failed += n;
      if (n > top_n) top_n = n, top = category_label(c);
    }
    table += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{} ({})</td><td>{}</td></tr>",
        run_name_html(r.info), r.overall.attempts, failed,
        fmt_pct(r.overall.attempts ? static_cast<double>(failed) / r.overall.attempts : 0),
        top_n ? fmt::format("{} ({})", html_escape(top), top_n) : "-");
  }
  table += "</tbody></table></div>";
  return "<section id=\"failures\"><h2>Gate failures</h2><p class=\"lead\">Every infeasible "
         "attempt, by the first gate it failed (cheapest first: static anti-hack, compile, "
         "correctness, dynamic anti-hack).</p><div class=\"grid2\"><div class=\"panel\">" +
         svg::bar_chart(b) + "</div><div>" + table + "</div></div></section>";
}

// ---- memory ----

// One stage's table (returned) and its trajectory chart (appended to `chart`, when Q was learned).
std::string memory_stage(const RunData& r, const StageMemoryView& sv, const ReportOptions& opt,
                         std::string& chart) {
  const MemoryView& mv = r.memory;
  std::string title = sv.stage == Stage::Draft ? "Drafting (Q1: helped produce a correct kernel)"
                                               : "Refining (Q2: helped make kernels faster)";
  std::string out = "<h3>" + html_escape(title) + "</h3>";
  if (sv.top.empty()) return out + "<p class=\"muted\">No item was visited in this stage.</p>";
  svg::LineChart c;
  c.title = fmt::format("Q{} of the top {} items over the run", sv.stage == Stage::Draft ? 1 : 2,
                        std::min(opt.trajectories, sv.top.size()));
  c.x_label = "attempt in the run";
  c.y_label = "Q";
  c.x_min = 0;
  c.x_max = std::max(mv.attempts, 1);
  c.height = 280;
  std::string rows;
  for (size_t i = 0; i < sv.top.size(); ++i) {
    const MemoryItemView& it = sv.top[i];
    std::vector<double> ys;
    for (const auto& p : it.trajectory) ys.push_back(p.second);
    bool charted = i < opt.trajectories && !it.trajectory.empty();
    if (charted) {
      svg::Series s;
      s.name = fmt::format("#{} {}", it.id, it.title);
      for (const auto& [x, y] : it.trajectory) s.points.push_back({double(x), y});
      s.points.push_back({double(mv.attempts), it.trajectory.back().second});
      s.step = true;
      s.color = svg::color(i);
      c.series.push_back(std::move(s));
    }
    rows += fmt::format(
        "<tr><td class=\"n\">{}</td><td>{}<div class=\"muted\">#{} · {}{}</div></td>"
        "<td class=\"n\">{:+.3f}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td>{}</td></tr>",
        i + 1, html_escape(it.title), it.id, html_escape(it.kind),
        it.origin_task.empty() ? "" : " · from " + html_escape(it.origin_task), it.q, it.visits,
        it.updates, it.updates ? fmt::format("{:+.2f}", it.mean_reward) : "-",
        ys.size() >= 2 ? svg::sparkline(ys, 120, 24, charted ? svg::color(i) : "#94a3b8") : "");
  }
  out +=
      "<div class=\"tablebox\"><table class=\"memory\"><thead><tr><th class=\"n\">#</th>"
      "<th>Item</th><th class=\"n\">Q</th><th class=\"n\">visits</th><th class=\"n\">in "
      "context (this run)</th><th class=\"n\">mean reward</th><th>Q over the run</th></tr>"
      "</thead><tbody>" +
      rows + "</tbody></table></div>";
  if (mv.learned && !c.series.empty())
    chart = "<div class=\"panel\">" + svg::line_chart(c) + "</div>";
  return out;
}

std::string memory(const std::vector<RunData>& runs, const ReportOptions& opt) {
  std::string out =
      "<section id=\"memory\"><h2>What the memory learned</h2><p class=\"lead\">Items with the "
      "highest Q-value per stage. Q moves by Q ← Q + α(r − Q) each time an item is in an "
      "attempt's context; trajectories are replayed from the run's provenance records.</p>";
  for (const auto& r : runs) {
    const MemoryView& mv = r.memory;
    out +=
        "<div class=\"card\" style=\"margin-bottom:16px\"><h3>" + run_name_html(r.info) + "</h3>";
    std::string kinds;
    int64_t total = 0;
    for (const auto& [k, n] : mv.items_by_kind) {
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, html_escape(k));
      total += n;
    }
    out += fmt::format("<div class=\"meta\">{} item(s){} · α = {}{}</div>", total,
                       kinds.empty() ? "" : " (" + kinds + ")", mv.alpha,
                       mv.note.empty() ? "" : " · " + html_escape(mv.note));
    std::string charts;
    if (mv.present)
      for (const auto& sv : mv.stages) {
        std::string chart;
        out += memory_stage(r, sv, opt, chart);
        charts += chart;
      }
    if (!charts.empty()) out += "<div class=\"grid2 charts2\">" + charts + "</div>";
    out += "</div>";
  }
  return out + "</section>";
}

// ---- tasks ----

std::string code_block(const std::string& summary, const std::string& code,
                       const std::string& feedback) {
  std::string out = "<details><summary>" + summary + "</summary>";
  if (!feedback.empty()) out += "<pre class=\"fb\">" + html_escape(feedback) + "</pre>";
  if (!code.empty()) out += "<pre><code>" + html_escape(code) + "</code></pre>";
  return out + "</details>";
}

std::string task_rows(const RunData& r, const TaskResult& t) {
  const Attempt* best = best_attempt(r, t.task);
  std::string name = html_escape(t.task);
  if (t.fitted)
    name +=
        "<span class=\"tag\" title=\"input shapes scaled down to fit "
        "--max-elements\">fitted</span>";
  std::map<Category, int> fails;
  const Attempt* last = nullptr;
  for (const auto& a : r.attempts)
    if (a.task == t.task) {
      if (!a.verdict.feasible) ++fails[a.verdict.category];
      if (!last || a.idx > last->idx) last = &a;
    }
  std::string fail_text;
  for (const auto& [c, n] : fails)
    fail_text +=
        fmt::format("{}{}×{}", fail_text.empty() ? "" : " ", n, html_escape(category_name(c)));
  if (t.withheld)  // feasible, but the model auditor's policy withheld the credit
    fail_text +=
        fmt::format("{}{}×withheld by the auditor", fail_text.empty() ? "" : " ", t.withheld);
  std::string status =
      t.solved ? fmt::format("<span class=\"ok\">attempt {}</span>", t.first_feasible_idx)
               : "<span class=\"bad\">unsolved</span>";
  std::string best_cell =
      best ? fmt::format("{} #{}", html_escape(stage_name(best->stage)), best->idx) : "-";
  std::string out = fmt::format(
      "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"nw\">{}</td><td class=\"n\">{}</td>"
      "<td class=\"nw\">{}</td>"
      "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
      "<td class=\"n\">{}</td><td class=\"muted\">{}</td></tr>",
      name, t.level, status, t.attempts, best_cell, t.solved ? fmt_ms(t.best_ms) : "-",
      fmt_ms(t.eager_ms), t.solved ? fmt_x(speedup(t.eager_ms, t.best_ms)) : "-",
      t.solved ? fmt_x(speedup(t.first_ms, t.best_ms)) : "-",
      t.solved && t.roofline_fraction > 0 ? fmt_pct(t.roofline_fraction) : "-",
      fail_text.empty() ? "-" : fail_text);
  std::string detail;
  if (best)
    detail = code_block(
        fmt::format("best kernel — attempt {} ({}), {}", best->idx,
                    html_escape(stage_name(best->stage)), fmt_ms(best->verdict.latency_ms)),
        best->code, "");
  else if (last)
    detail = code_block(
        fmt::format("last attempt — {} ({}): {}", last->idx, html_escape(stage_name(last->stage)),
                    html_escape(category_name(last->verdict.category))),
        last->code, last->verdict.feedback);
  std::string audits;  // every review of the model auditor, per attempt
  for (const auto& a : r.attempts)
    if (a.task == t.task && a.audit.audited())
      audits += fmt::format("<li>attempt {} ({}): {}</li>", a.idx, html_escape(stage_name(a.stage)),
                            html_escape(audit_line(a.audit)));
  if (!audits.empty())
    detail += fmt::format(
        "<details><summary>model auditor — {} review(s), {} withheld</summary>"
        "<ul>{}</ul></details>",
        t.audited, t.withheld, audits);
  if (!detail.empty()) out += "<tr class=\"code\"><td colspan=\"11\">" + detail + "</td></tr>";
  return out;
}

std::string tasks(const std::vector<RunData>& runs) {
  std::string out =
      "<section id=\"tasks\"><h2>Tasks</h2><p class=\"lead\">The best feasible kernel of each "
      "task (open a row's code to read it), its latency against PyTorch eager and the first "
      "draft, and the fraction of the machine's roofline it reaches.</p>";
  for (const auto& r : runs) {
    out +=
        "<h3>" + run_name_html(r.info) +
        "</h3><div class=\"tablebox\"><table class=\"tasks\">"
        "<thead><tr><th>Task</th><th class=\"n\">Level</th><th>Solved at</th>"
        "<th class=\"n\">Attempts</th><th>Best from</th><th class=\"n\">Latency</th>"
        "<th class=\"n\">Eager</th><th class=\"n\">× eager</th><th class=\"n\">× first draft</th>"
        "<th class=\"n\">Roofline</th><th>Failures</th></tr></thead><tbody>";
    for (const auto& t : r.overall.per_task) out += task_rows(r, t);
    out += "</tbody></table></div>";
    if (!r.overall.skipped.empty()) {
      out += fmt::format(
          "<p>Skipped without attempts ({}), not in any figure:</p><div "
          "class=\"tablebox\"><table class=\"tasks\"><thead><tr><th>Task</th>"
          "<th>Reason</th></tr></thead><tbody>",
          r.overall.skipped.size());
      for (const auto& [task, why] : r.overall.skipped)
        out += "<tr><td>" + html_escape(task) + "</td><td>" + html_escape(why) + "</td></tr>";
      out += "</tbody></table></div>";
    }
  }
  return out + "</section>";
}

std::string footer(const std::vector<RunData>& runs) {
  bool any_sim = false, any_fitted = false;
  for (const auto& r : runs) {
    any_sim |= r.info.simulated;
    for (const auto& t : r.tasks) any_fitted |= t.fitted;
  }
  std::string out = "<footer><ul>";
  if (any_sim)
    out +=
        "<li><strong>SIMULATED</strong> runs used model <code>sim</code>: the offline coder "
        "of docs/architecture.md §8, a stochastic program generator, not an LLM.</li>";
  if (any_fitted)
    out +=
        "<li>Tasks tagged <em>fitted</em> ran with input shapes scaled down to fit "
        "--max-elements; their latencies are not those of the original sizes.</li>";
  out +=
      "<li>PyTorch eager is timed in float32 with allocator reuse (freed blocks kept, like "
      "PyTorch's CUDA caching allocator), on the same thread count as the kernels.</li>"
      "<li>Roofline fraction: achieved throughput over what the machine's measured bandwidth "
      "and compute peaks allow for the task's bytes and FLOPs.</li>"
      "<li>Generated by evokernel; this file needs no network and no scripts.</li></ul></footer>";
  return out;
}

}  // namespace

std::string render_report(const std::vector<RunData>& runs, const ReportOptions& opt) {
  if (runs.empty()) return "";
  std::string title = fmt::format("EvoKernel report — run {}", runs.front().info.id);
  std::string out =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>" +
      html_escape(title) + (runs.front().info.simulated ? " (SIMULATED)" : "") + "</title><style>" +
      kStyle + "</style></head><body>";
  out += header(runs, opt);
  out += "<main class=\"wrap\">" + banners(runs) + summary(runs) + progress(runs) + speedups(runs) +
         failures(runs) + memory(runs, opt) + tasks(runs) + footer(runs) +
         "</main></body></html>\n";
  return out;
}

}  // namespace evk
