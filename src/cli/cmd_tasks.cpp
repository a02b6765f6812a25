// `evokernel tasks list|show|ref|table`: suites, their tasks and the oracle's references.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "backends/backend.h"
#include "cli/context.h"
#include "agent/prompt.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "tasks/baseline.h"
#include "tasks/lint.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"

namespace evk::cli {

namespace {

std::string fitted_text(const TaskInfo& t) {
  if (t.fitted.empty()) return "no";
  std::string s;
  for (const auto& [k, v] : t.fitted)
    s += fmt::format("{}{}:{}->{}", s.empty() ? "" : " ", k, v.first, v.second);
  return s;
}

// Distinct operator names of the fx op list, in first-use order.
std::string operators(const Reference& r) {
  std::vector<std::string> ops;
  std::set<std::string> seen;
  for (const auto& op : r.meta.value("fx_ops", nlohmann::json::array())) {
    std::string kind = op.value("kind", "");
    if (kind == "placeholder" || kind == "output" || kind == "get_attr") continue;
    std::string name = op.value("op", "");
    if (seen.insert(name).second) ops.push_back(name);
  }
  std::string s;
  for (const auto& o : ops) s += (s.empty() ? "" : ", ") + o;
  return s.empty() ? "(not traceable)" : s;
}

void list(Context& ctx, const std::string& suite_name) {
  Suite s = load_suite(ctx.workspace(), suite_name, oracle_options(ctx.config()));
  std::cout << fmt::format("{:<34} {:>5} {:>14} {:>14} {:>8}  {}\n", "task", "level",
                           "input elems", "all elems", "GFLOP", "fitted");
  int broken = 0;
  for (const auto& t : s.tasks) {
    if (!t.ok) {
      std::cout << fmt::format("{:<34} {:>5} {:>14} {:>14} {:>8}  BROKEN: {}\n", t.id, t.level,
                               "-", "-", "-", t.error);
      ++broken;
      continue;
    }
    std::cout << fmt::format("{:<34} {:>5} {:>14} {:>14} {:>8.3g}  {}{}\n", t.id, t.level,
                             t.input_elements, t.elements, static_cast<double>(t.flops) / 1e9,
                             fitted_text(t), t.within_bounds ? "" : " (over the bounds)");
  }
  std::cout << fmt::format("{} tasks, {} broken\n", s.tasks.size(), broken);
}

void show(Context& ctx, const std::string& suite_name, const std::string& id) {
  Suite s = load_suite(ctx.workspace(), suite_name, oracle_options(ctx.config()));
  const TaskInfo& t = find_task(s, id);
  if (!t.ok) throw evk::Error("task " + t.id + " is broken: " + t.error);
  Reference r = oracle_reference(ctx.workspace(), t, 0, oracle_options(ctx.config()));
  std::cout << "# " << t.id << " (level " << t.level << ", " << t.path.string() << ")\n";
  if (!t.doc.empty()) std::cout << t.doc << "\n";
  std::cout << "\nfitted: " << fitted_text(t) << "\n\nABI tensors (in order):\n";
  for (const auto& a : r.abi)
    std::cout << fmt::format("  {:<28} {:<6} {:<4} {}\n", a.name, a.role, dtype_name(a.dtype),
                             shape_str(a.shape));
  for (const auto& a : r.outputs)
    std::cout << fmt::format("  {:<28} {:<6} {:<4} {}\n", a.name, a.role, dtype_name(a.dtype),
                             shape_str(a.shape));
  const auto& e = r.meta["eager"];
  std::cout << fmt::format(
      "\noperators: {}\nFLOPs: {}  bytes: {}\nPyTorch eager float32: {:.3f} ms median (IQR {:.3f} "
      "ms, {} runs, {} thread(s), allocator reuse)\n",
      operators(r), r.flops, r.bytes, r.eager_ms, e.value("iqr_ms", 0.0), e.value("runs", 0),
      e.value("threads", 1));
  // The baseline this reference was timed on, as its own process recorded it.
  if (r.meta.contains("baseline"))
    std::cout << "  on " << EagerBaseline::from_json(r.meta["baseline"]).describe() << "\n";
  std::cout << "\n";
  std::cout << t.source;
}

void ref(Context& ctx, const std::string& suite_name, const std::string& id, int seed) {
  Suite s = load_suite(ctx.workspace(), suite_name, oracle_options(ctx.config()));
  const TaskInfo& t = find_task(s, id);
  if (!t.ok) throw evk::Error("task " + t.id + " is broken: " + t.error);
  Reference r = oracle_reference(ctx.workspace(), t, seed, oracle_options(ctx.config()));
  std::cout << r.tensors_path.string() << "\n";
}

// The draft prompt a model would get on a cold start: the guide, no memory, no attempts.
void prompt(Context& ctx, const std::string& suite_name, const std::string& id,
            const std::string& backend_name) {
  auto backend = make_backend(backend_name);
  Suite s = load_suite(ctx.workspace(), suite_name, oracle_options(ctx.config()));
  const TaskInfo& t = find_task(s, id);
  if (!t.ok) throw evk::Error("task " + t.id + " is broken: " + t.error);
  Reference r = oracle_reference(ctx.workspace(), t, 0, oracle_options(ctx.config()));
  PromptTemplates templates(data_root() / "prompts");
  PromptInputs in;
  in.backend = backend->name();
  in.language = backend->language();
  in.source_filename = backend->source_filename();
  in.timing_note = backend->timing_note(static_cast<int>(ctx.config().integer("verify.threads")));
  auto guide = backend->knowledge_dir() / "guide.md";
  if (std::filesystem::exists(guide)) {
    std::string g = read_file(guide);  // the body after the front-matter block
    size_t end = g.rfind("---", 0) == 0 ? g.find("\n---\n", 3) : std::string::npos;
    in.guide = end == std::string::npos ? g : g.substr(end + 5);
  }
  in.task = &t;
  in.ref = &r;
  std::cout << templates.draft(in);
}

std::vector<std::string> split_ids(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (!s.empty() && pos <= s.size()) {
    size_t c = s.find(',', pos);
    std::string id = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    if (!id.empty()) out.push_back(id);
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

// The fairness lint over a suite: one line per task, the findings indented below; exit 1 when
// some task is degenerate (or could not be linted), so a script can gate on it.
void check(Context& ctx, const std::string& suite_name, const std::string& ids, bool as_json) {
  OracleOptions opt = oracle_options(ctx.config());
  Suite s = load_suite(ctx.workspace(), suite_name, opt);
  std::vector<const TaskInfo*> tasks;
  if (ids.empty())
    for (const auto& t : s.tasks) tasks.push_back(&t);
  for (const auto& id : split_ids(ids)) tasks.push_back(&find_task(s, id));
  int degenerate = 0, failed = 0;
  nlohmann::json out = nlohmann::json::array();
  for (const TaskInfo* t : tasks) {
    LintResult r;
    if (t->ok)
      r = lint_task(ctx.workspace(), *t, opt);
    else
      r.error = "broken file: " + t->error;
    degenerate += r.degenerate();
    failed += !r.ok;
    if (as_json) {
      nlohmann::json f = nlohmann::json::array();
      for (const auto& x : r.findings) f.push_back({{"check", x.check}, {"detail", x.detail}});
      out.push_back({{"task", t->id}, {"level", t->level}, {"ok", r.ok}, {"error", r.error},
                     {"degenerate", r.degenerate()}, {"findings", f}});
      continue;
    }
    if (!r.ok) {
      std::cout << fmt::format("{:<40} NOT CHECKED: {}\n", t->id, r.error);
      continue;
    }
    std::cout << fmt::format("{:<40} {}\n", t->id, r.degenerate() ? "DEGENERATE" : "ok");
    for (const auto& x : r.findings) std::cout << fmt::format("    {}: {}\n", x.check, x.detail);
  }
  if (as_json)
    std::cout << out.dump(1) << "\n";
  else
    std::cout << fmt::format("{} tasks: {} degenerate, {} not checked, {} ok\n", tasks.size(),
                             degenerate, failed, tasks.size() - degenerate - failed);
  if (degenerate || failed)
    throw evk::Error(fmt::format("{} degenerate and {} unchecked task(s) in {}", degenerate,
                                 failed, suite_name));
}

// Copies tasks into a new suite folder with a manifest of their levels, so a selection from
// several levelN folders keeps each task's level.
void select(Context& ctx, const std::vector<std::string>& from, const std::string& ids,
            const std::string& out_dir) {
  namespace fs = std::filesystem;
  if (fs::exists(out_dir) && !fs::is_empty(out_dir))
    throw UsageError("--out " + out_dir + " exists and is not empty: give a new folder");
  std::vector<std::string> want = split_ids(ids);
  OracleOptions opt = oracle_options(ctx.config());
  nlohmann::json levels = nlohmann::json::object();
  std::vector<const TaskInfo*> picked;
  std::vector<Suite> suites;
  suites.reserve(from.size());
  for (const auto& name : from) suites.push_back(load_suite(ctx.workspace(), name, opt));
  for (const auto& s : suites)
    for (const auto& t : s.tasks)
      if (want.empty() || std::find(want.begin(), want.end(), t.id) != want.end()) {
        if (levels.contains(t.id))
          throw UsageError("task id '" + t.id + "' appears in two of the suites: select it from one");
        levels[t.id] = t.level;
        picked.push_back(&t);
      }
  for (const auto& id : want)
    if (!levels.contains(id)) find_task(suites.front(), id);  // throws with suggestions
  if (picked.empty()) throw UsageError("no task selected");
  fs::create_directories(out_dir);
  for (const TaskInfo* t : picked) fs::copy_file(t->path, fs::path(out_dir) / t->path.filename());
  nlohmann::json manifest = {{"levels", levels}};
  write_file_atomic(fs::path(out_dir) / kSuiteManifest, manifest.dump(1) + "\n");
  std::cout << fmt::format("{} task(s) copied to {} with their levels in {}\n", picked.size(),
                           out_dir, kSuiteManifest);
}

void table(Context& ctx, const std::vector<std::string>& suites) {
  std::cout << "| task | level | operators | input elements | FLOPs | eager ms (1 thread) |\n"
               "|---|---|---|---|---|---|\n";
  for (const auto& name : suites) {
    Suite s = load_suite(ctx.workspace(), name, oracle_options(ctx.config()));
    for (const auto& t : s.tasks) {
      if (!t.ok) {
        std::cout << fmt::format("| {} | {} | BROKEN: {} | | | |\n", t.id, t.level, t.error);
        continue;
      }
      Reference r = oracle_reference(ctx.workspace(), t, 0, oracle_options(ctx.config()));
      std::cout << fmt::format("| {} | {} | {} | {} | {:.3g} | {:.2f} |\n", t.id, t.level,
                               operators(r), t.input_elements, static_cast<double>(r.flops),
                               r.eager_ms);
    }
  }
}

}  // namespace

void add_tasks_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("tasks", "List and inspect tasks; produce PyTorch references");
  cmd->require_subcommand(1);
  static std::string suite, task, backend;
  static int seed = 0;
  static std::vector<std::string> suites;

  auto* l = cmd->add_subcommand(
      "list", "List a suite's tasks: id, level, input elements, all elements (with parameters), "
              "GFLOP per forward, how shapes were fitted");
  l->add_option("SUITE", suite, "builtin:NAME or a folder of KernelBench task files")->required();
  l->callback([&ctx] { list(ctx, suite); });

  auto* s = cmd->add_subcommand(
      "show", "Show a task: source, ABI tensor list with shapes, operators, eager latency");
  s->add_option("SUITE", suite, "builtin:NAME or a folder")->required();
  s->add_option("TASK", task, "task id (the file stem)")->required();
  s->callback([&ctx] { show(ctx, suite, task); });

  auto* r = cmd->add_subcommand(
      "ref", "Produce (or reuse from the cache) the reference of a task for a seed; prints the "
             "path of its safetensors file");
  r->add_option("SUITE", suite, "builtin:NAME or a folder")->required();
  r->add_option("TASK", task, "task id (the file stem)")->required();
  r->add_option("--seed", seed, "seed of the model and inputs")->check(CLI::NonNegativeNumber);
  r->callback([&ctx] { ref(ctx, suite, task, seed); });

  auto* p = cmd->add_subcommand(
      "prompt", "Print the cold-start draft prompt of a task (the guide, no memory) as a model "
                "would see it");
  p->add_option("SUITE", suite, "builtin:NAME or a folder")->required();
  p->add_option("TASK", task, "task id (the file stem)")->required();
  p->add_option("--backend", backend, "target backend: " + backend_help())->default_val("cpu");
  p->callback([&ctx] { prompt(ctx, suite, task, backend); });

  static std::string ids, out_dir;
  static bool as_json = false;
  auto* c = cmd->add_subcommand(
      "check",
      "Fairness lint of a suite's tasks at the fitted size: outputs constant or nearly zero, "
      "outputs that ignore an input, float32 missing the float64 reference, non-deterministic "
      "outputs, tasks that all zeros or a copy of an input would pass. Exit 1 when any task is "
      "degenerate or cannot be checked");
  c->add_option("SUITE", suite, "builtin:NAME or a folder")->required();
  c->add_option("--tasks", ids, "comma-separated task ids (default: the whole suite)");
  c->add_flag("--json", as_json, "print JSON");
  c->callback([&ctx] { check(ctx, suite, ids, as_json); });

  auto* sel = cmd->add_subcommand(
      "select",
      "Copy tasks from suite folders into a new folder with a manifest of their levels "
      "(evokernel-suite.json), so the selection keeps each task's level");
  sel->add_option("SUITE", suites, "one or more suites to pick from")->required();
  sel->add_option("--tasks", ids, "comma-separated task ids (default: all)");
  sel->add_option("--out", out_dir, "the new suite folder")->required();
  sel->callback([&ctx] { select(ctx, suites, ids, out_dir); });

  auto* t = cmd->add_subcommand(
      "table", "Print a Markdown table of suites: task, level, operators, input elements, FLOPs, "
               "eager latency (computes references as needed)");
  t->add_option("SUITE", suites, "one or more suites")->required();
  t->callback([&ctx] { table(ctx, suites); });
}

}  // namespace evk::cli
