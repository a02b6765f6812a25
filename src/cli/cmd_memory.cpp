// `evokernel memory stats|list|top|show|export|import|prune|seed`: inspect and carry the
// value-driven memory bank.
#include <fmt/format.h>

#include <iostream>
#include <set>
#include <sstream>

#include "cli/context.h"
#include "core/error.h"
#include "core/paths.h"
#include "memory/memory.h"
#include "run/run_store.h"

namespace evk::cli {

namespace {

std::string run_flag;  // --run: the memory of that run ("latest" for the newest)

// The workspace's own bank, or with --run the bank a run learned (runs/<id>/).
Memory open_memory(Context& ctx) {
  if (run_flag.empty()) return Memory(ctx.workspace(), memory_params(ctx.config()));
  static std::unique_ptr<Workspace> run_ws;
  RunStore store(ctx.workspace());
  run_ws = std::make_unique<Workspace>(store.run_dir(store.resolve(run_flag)));
  return Memory(*run_ws, memory_params(ctx.config()));
}

std::string one_line(const std::string& s, size_t n) {
  std::string t;
  for (char c : s) t += (c == '\n' || c == '\t') ? ' ' : c;
  return t.size() > n ? t.substr(0, n - 3) + "..." : t;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void stats(Context& ctx) {
  Memory m = open_memory(ctx);
  MemoryStats s = m.stats();
  std::cout << fmt::format("items: {} ({} near-duplicates merged into them)\n", s.items, s.merged);
  for (const char* k : {"api", "experience", "trace", "best_practice"})
    std::cout << fmt::format("  {:<14} {}\n", k, s.items_by_kind.count(k) ? s.items_by_kind[k] : 0);
  for (const char* st : {"draft", "refine"})
    std::cout << fmt::format("Q {:<7} visited items: {:<6} mean Q of visited: {:+.3f}\n", st,
                             s.visited.count(st) ? s.visited[st] : 0,
                             s.mean_q.count(st) ? s.mean_q[st] : 0.0);
  std::cout << fmt::format("refining reward normaliser: n={} mean={:+.3f} std={:.3f}\n",
                           s.refine_normaliser.n, s.refine_normaliser.mean,
                           s.refine_normaliser.stddev());
  std::cout << fmt::format("provenance: {} attempts, {} (attempt, item) rows\n", s.attempts,
                           s.provenance_rows);
}

void list(Context& ctx, const std::string& kind, size_t limit) {
  Memory m = open_memory(ctx);
  auto items = m.list(kind.empty() ? std::nullopt : std::optional<ItemKind>(kind_from(kind)), limit);
  std::cout << fmt::format("{:>6}  {:<13} {:<24} {}\n", "id", "kind", "task", "title");
  for (const auto& it : items)
    std::cout << fmt::format("{:>6}  {:<13} {:<24} {}\n", it.id, kind_name(it.kind),
                             it.origin_task.empty() ? "-" : one_line(it.origin_task, 24),
                             one_line(it.title, 80));
  std::cout << items.size() << " items\n";
}

void top(Context& ctx, const std::string& stage, size_t n) {
  Memory m = open_memory(ctx);
  auto rows = m.top(stage_from(stage), n);
  std::cout << fmt::format("{:>6}  {:>7} {:>6}  {:<13} {}\n", "id", "Q", "visits", "kind", "title");
  for (const auto& [it, e] : rows)
    std::cout << fmt::format("{:>6}  {:>+7.3f} {:>6}  {:<13} {}\n", it.id, e.q, e.visits,
                             kind_name(it.kind), one_line(it.title, 80));
  if (rows.empty()) std::cout << "no item has a " << stage << " Q-value yet\n";
}

void show(Context& ctx, int64_t id) {
  Memory m = open_memory(ctx);
  Item it = m.get(id);
  QEntry d = m.q_entry(id, Stage::Draft), r = m.q_entry(id, Stage::Refine);
  std::cout << fmt::format("# {} [{}] {}\n", it.id, kind_name(it.kind), it.title);
  std::cout << fmt::format("backend: {}  task: {}  created: {}\n", it.backend,
                           it.origin_task.empty() ? "-" : it.origin_task, it.created);
  std::cout << fmt::format("feasible: {}  latency: {}  parent: {}\n", it.feasible ? "yes" : "no",
                           it.latency_ms ? fmt::format("{:.4g} ms", *it.latency_ms) : "-",
                           it.parent ? std::to_string(*it.parent) : "-");
  std::cout << "tags: " << joined(it.tags) << "\n";
  std::cout << fmt::format("Q draft: {:+.3f} ({} visits)  Q refine: {:+.3f} ({} visits)\n\n", d.q,
                           d.visits, r.q, r.visits);
  std::cout << it.body << "\n";
  if (!it.feedback.empty()) std::cout << "\n## feedback\n" << it.feedback << "\n";
  if (!it.code.empty()) std::cout << "\n## code\n" << it.code << "\n";
}

std::set<std::string> split_csv(const std::string& s) {
  std::set<std::string> out;
  std::stringstream in(s);
  for (std::string t; std::getline(in, t, ',');)
    if (!t.empty()) out.insert(t);
  return out;
}

}  // namespace

void add_memory_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "memory", "Inspect, export and import the value-driven memory bank (items and Q-values)");
  cmd->require_subcommand(1);
  cmd->add_option("--run", run_flag,
                  "the memory a run learned (a run id or `latest`); default: the workspace's "
                  "own bank, which new runs do not touch");
  static std::string kind, stage = "draft", file, exclude, dir, backend = "cpu";
  static size_t n = 20, limit = 0;
  static int64_t id = 0;
  static int keep = 50;
  static bool dry_run = false;

  cmd->add_subcommand("stats", "Counts by kind, Q-value summary per stage, normaliser, provenance")
      ->callback([&ctx] { stats(ctx); });

  auto* l = cmd->add_subcommand("list", "List items: id, kind, origin task, title");
  l->add_option("--kind", kind, "only this kind: api, experience, trace or best_practice");
  l->add_option("--limit", limit, "at most N items (0: all)");
  l->callback([&ctx] { list(ctx, kind, limit); });

  auto* t = cmd->add_subcommand("top", "Items with the highest Q-value of a stage");
  t->add_option("--stage", stage, "draft (Q1: helped correctness) or refine (Q2: helped speed)")
      ->check(CLI::IsMember({"draft", "refine"}));
  t->add_option("-n", n, "how many (default 20)");
  t->callback([&ctx] { top(ctx, stage, n); });

  auto* s = cmd->add_subcommand("show", "Show one item in full with its Q-values");
  s->add_option("ID", id, "item id (see `evokernel memory list`)")->required();
  s->callback([&ctx] { show(ctx, id); });

  auto* e = cmd->add_subcommand("export", "Write every item with its Q-values as JSON Lines");
  e->add_option("FILE", file, "output file (.jsonl)")->required();
  e->callback([&ctx] {
    Memory m = open_memory(ctx);
    m.export_jsonl(file);
    std::cout << fmt::format("exported {} items to {}\n", m.size(), file);
  });

  auto* i = cmd->add_subcommand(
      "import", "Load items and Q-values from a JSON Lines export (identical items are kept once)");
  i->add_option("FILE", file, "a file written by `evokernel memory export`")->required();
  i->add_option("--exclude-tasks", exclude,
                "comma-separated task ids whose traces, experiences and best practices are "
                "left out (held-out tasks)");
  i->callback([&ctx] {
    Memory m = open_memory(ctx);
    size_t added = m.import_jsonl(file, split_csv(exclude));
    std::cout << fmt::format("imported {} new items ({} in memory)\n", added, m.size());
  });

  auto* p = cmd->add_subcommand(
      "prune", "Remove old traces that taught nothing: beyond the newest N of each task, not a "
               "parent of another item, Q not positive in any stage");
  p->add_option("--keep", keep, "newest traces kept per task (default 50)")
      ->check(CLI::NonNegativeNumber);
  p->add_flag("--dry-run", dry_run, "only count what would be removed");
  p->callback([&ctx] {
    Memory m = open_memory(ctx);
    size_t k = m.prune({keep, dry_run});
    std::cout << fmt::format("{} {} traces\n", dry_run ? "would remove" : "removed", k);
  });

  auto* sd = cmd->add_subcommand(
      "seed", "Load (or reload: idempotent) a backend's knowledge files into memory");
  sd->add_option("--dir", dir, "folder of *.md knowledge files (default: knowledge/<backend>)");
  sd->add_option("--backend", backend, "backend the items belong to (default cpu)");
  sd->callback([&ctx] {
    Memory m = open_memory(ctx);
    std::filesystem::path d = dir.empty() ? data_root() / "knowledge" / backend : std::filesystem::path(dir);
    size_t k = m.seed_from_knowledge(d, backend);
    std::cout << fmt::format("{} items added or updated from {}\n", k, d.string());
  });
}

}  // namespace evk::cli
