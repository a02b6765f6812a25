// `evokernel tasks list|show|ref|table`: suites, their tasks and the oracle's references.
#include <fmt/format.h>

#include <iostream>
#include <set>

#include "backends/backend.h"
#include "cli/context.h"
#include "agent/prompt.h"
#include "core/error.h"
#include "core/paths.h"
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
  Suite s = load_suite(ctx.workspace(), suite_name, ctx.max_elements());
  std::cout << fmt::format("{:<34} {:>5} {:>14}  {}\n", "task", "level", "input elems", "fitted");
  int broken = 0;
  for (const auto& t : s.tasks) {
    if (!t.ok) {
      std::cout << fmt::format("{:<34} {:>5} {:>14}  BROKEN: {}\n", t.id, t.level, "-", t.error);
      ++broken;
      continue;
    }
    std::cout << fmt::format("{:<34} {:>5} {:>14}  {}\n", t.id, t.level, t.input_elements,
                             fitted_text(t));
  }
  std::cout << fmt::format("{} tasks, {} broken\n", s.tasks.size(), broken);
}

void show(Context& ctx, const std::string& suite_name, const std::string& id) {
  Suite s = load_suite(ctx.workspace(), suite_name, ctx.max_elements());
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
      "ms, {} runs, {} thread(s), allocator reuse)\n\n",
      operators(r), r.flops, r.bytes, r.eager_ms, e.value("iqr_ms", 0.0), e.value("runs", 0),
      e.value("threads", 1));
  std::cout << t.source;
}

void ref(Context& ctx, const std::string& suite_name, const std::string& id, int seed) {
  Suite s = load_suite(ctx.workspace(), suite_name, ctx.max_elements());
  const TaskInfo& t = find_task(s, id);
  if (!t.ok) throw evk::Error("task " + t.id + " is broken: " + t.error);
  Reference r = oracle_reference(ctx.workspace(), t, seed, oracle_options(ctx.config()));
  std::cout << r.tensors_path.string() << "\n";
}

// The draft prompt a model would get on a cold start: the guide, no memory, no attempts.
void prompt(Context& ctx, const std::string& suite_name, const std::string& id,
            const std::string& backend_name) {
  auto backend = make_backend(backend_name);
  Suite s = load_suite(ctx.workspace(), suite_name, ctx.max_elements());
  const TaskInfo& t = find_task(s, id);
  if (!t.ok) throw evk::Error("task " + t.id + " is broken: " + t.error);
  Reference r = oracle_reference(ctx.workspace(), t, 0, oracle_options(ctx.config()));
  PromptTemplates templates(data_root() / "prompts");
  PromptInputs in;
  in.backend = backend->name();
  in.language = backend->language();
  in.source_filename = backend->source_filename();
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

void table(Context& ctx, const std::vector<std::string>& suites) {
  std::cout << "| task | level | operators | input elements | FLOPs | eager ms (1 thread) |\n"
               "|---|---|---|---|---|---|\n";
  for (const auto& name : suites) {
    Suite s = load_suite(ctx.workspace(), name, ctx.max_elements());
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
      "list", "List a suite's tasks: id, level, input elements, whether shapes were fitted");
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

  auto* t = cmd->add_subcommand(
      "table", "Print a Markdown table of suites: task, level, operators, input elements, FLOPs, "
               "eager latency (computes references as needed)");
  t->add_option("SUITE", suites, "one or more suites")->required();
  t->callback([&ctx] { table(ctx, suites); });
}

}  // namespace evk::cli
