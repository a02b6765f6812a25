// `evokernel run | runs | results | bench`: synthesis runs, their list and their metrics.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "agent/agent.h"
#include "backends/backend.h"
#include "cli/baseline_check.h"
#include "cli/context.h"
#include "cli/executor_flags.h"
#include "core/build_info.h"
#include "core/error.h"
#include "core/paths.h"
#include "llm/accountant.h"
#include "report/metrics.h"
#include "report/progress.h"
#include "report/run_data.h"
#include "tasks/suite.h"

namespace evk::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct RunArgs {
  std::string suite, tasks, model, method = "evokernel", curriculum = "given", prompt_dir;
  std::string resume, memory_from, exclude_tasks, backend = "cpu", auditor;
  int budget = -1, parallel_tasks = 1, level = -1;
  int64_t seed = -1;
  bool dry_run = false, freeze_memory = false, quiet = false, json_events = false;
  bool skip_degenerate = false, allow_slow_baseline = false;
  ExecutorArgs exec;
};

std::vector<std::string> split_csv_list(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size() && !s.empty()) {
    size_t c = s.find(',', pos);
    std::string item = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    if (!item.empty()) out.push_back(item);
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

// The tasks of a run, in the order they will be attempted, from one or more suites.
std::vector<const TaskInfo*> select_tasks(const std::vector<Suite>& suites,
                                          const std::vector<std::string>& ids,
                                          const std::string& curriculum) {
  std::vector<const TaskInfo*> all, out;
  std::set<std::string> seen;
  for (const auto& s : suites)
    for (const auto& t : s.tasks) {
      if (!seen.insert(t.id).second)
        throw UsageError("task id '" + t.id + "' appears in two suites: run them separately");
      all.push_back(&t);
    }
  if (ids.empty()) out = all;
  for (const auto& id : ids) {
    auto it = std::find_if(all.begin(), all.end(), [&](const TaskInfo* t) { return t->id == id; });
    if (it == all.end()) find_task(suites.front(), id);  // throws with suggestions
    out.push_back(*it);
  }
  // Broken tasks stay in: the run records them as skipped, with the reason, and goes on.
  if (curriculum == "level")
    std::stable_sort(out.begin(), out.end(),
                     [](const TaskInfo* a, const TaskInfo* b) { return a->level < b->level; });
  else if (curriculum != "given")
    throw UsageError("unknown --curriculum '" + curriculum + "': use given or level");
  return out;
}

// Progress: a live status line on a TTY, plain lines otherwise, JSON Lines events with --json,
// nothing with --quiet.
AgentListener progress_listener(const RunArgs& a, int budget,
                                std::shared_ptr<ProgressPrinter>& printer) {
  if (a.json_events) {
    auto mu = std::make_shared<std::mutex>();
    return [mu](const AgentEvent& e) {
      std::lock_guard lk(*mu);
      json j = {{"event", e.kind},
                {"task", e.task},
                {"task_index", e.task_index},
                {"task_count", e.task_count}};
      if (!e.reason.empty()) j["reason"] = e.reason;
      if (const Attempt* at = e.attempt) {
        j["idx"] = at->idx;
        j["stage"] = stage_name(at->stage);
        j["category"] = category_name(at->verdict.category);
        j["feasible"] = at->verdict.feasible;
        j["latency_ms"] = at->verdict.latency_ms;
        j["eager_ms"] = at->verdict.eager_ms;
        j["reward"] = at->reward;
        j["tokens"] = at->prompt_tokens + at->completion_tokens;
        j["cost_usd"] = at->cost_usd;
        if (at->audit.audited()) j["audit"] = to_json(at->audit);
      }
      std::cout << j.dump() << std::endl;
    };
  }
  if (a.quiet) return {};
  ProgressOptions po;
  po.live = ::isatty(1) != 0;
  po.budget = budget;
  printer = std::make_shared<ProgressPrinter>(po);
  return [p = printer](const AgentEvent& e) { (*p)(e); };
}

}  // namespace
}  // namespace evk::cli

namespace evk::cli {
namespace {

// Everything a run needs, resolved from flags, config and (on --resume) the stored run.
struct Session {
  RunInfo info;
  std::vector<std::string> task_ids;
  std::string exclude_tasks, memory_from, prompt_dir, curriculum;
  bool freeze_memory = false;
  int parallel_tasks = 1;
  int level = -1;  // --level: the level of tasks whose folder and manifest do not say
};

Session resolve_session(Context& ctx, const RunArgs& a, RunStore& store) {
  Session s;
  if (!a.resume.empty()) {
    s.info = store.get(store.resolve(a.resume));
    const json& o = s.info.options;
    s.task_ids = s.info.tasks;
    s.prompt_dir = o.value("prompt_dir", "");
    s.curriculum = o.value("curriculum", "given");
    s.freeze_memory = o.value("freeze_memory", false);
    s.level = o.value("level", -1);
    s.parallel_tasks = a.parallel_tasks;
    const json stored = o.value("config", json::object());
    for (auto& [k, v] : stored.items())
      ctx.config().set(k, v.get<std::string>(), "run " + std::to_string(s.info.id));
    return s;
  }
  if (a.suite.empty()) throw UsageError("--suite is required (or --resume RUN)");
  Config& cfg = ctx.config();
  if (a.budget == 0 || a.budget < -1) throw UsageError("--budget must be at least 1");
  if (a.budget > 0) cfg.set("agent.budget", std::to_string(a.budget), "flag");
  if (a.seed >= 0) cfg.set("agent.seed", std::to_string(a.seed), "flag");
  if (!a.model.empty()) cfg.set("llm.model", a.model, "flag");
  if (!a.auditor.empty()) cfg.set("audit.model", a.auditor, "flag");
  if (a.skip_degenerate) cfg.set("tasks.lint", "skip", "flag");
  if (a.level < -1) throw UsageError("--level must be 0 or more");
  s.level = a.level;
  method_by_name(a.method);  // validates
  s.info.method = a.method;
  s.info.model = cfg.str("llm.model");
  s.info.suite = a.suite;
  s.info.backend = a.backend;
  s.info.budget = static_cast<int>(cfg.integer("agent.budget"));
  s.info.seed = static_cast<uint64_t>(cfg.integer("agent.seed"));
  s.task_ids = split_csv_list(a.tasks);
  s.prompt_dir = a.prompt_dir;
  s.curriculum = a.curriculum;
  s.freeze_memory = a.freeze_memory;
  s.parallel_tasks = a.parallel_tasks;
  s.exclude_tasks = a.exclude_tasks;
  s.memory_from = a.memory_from;
  if (!s.memory_from.empty() && !fs::exists(s.memory_from))
    throw UsageError("--memory-from " + s.memory_from +
                     " does not exist: export one with `evokernel memory export FILE`");
  if (s.parallel_tasks < 1) throw UsageError("--parallel-tasks must be at least 1");
  return s;
}

AgentOptions agent_options(Context& ctx, const Session& s) {
  const Config& cfg = ctx.config();
  AgentOptions o;
  o.method = method_by_name(s.info.method);
  o.budget = s.info.budget;
  o.parallel_tasks = s.parallel_tasks;
  o.seed = s.info.seed;
  o.freeze_memory = s.freeze_memory;
  o.prompt_dir = s.prompt_dir.empty() ? data_root() / "prompts" : fs::path(s.prompt_dir);
  o.verify = verify_options(cfg);
  if (s.info.simulated) {
    // The sim writes kernels specialised to the prompt's shapes, and not every generator
    // propagates NaN: it cannot meet these two checks by construction (README, "--model sim").
    o.verify.edge_set = false;
    o.verify.second_shape = false;
  }
  o.oracle = oracle_options(cfg);
  std::string lint = cfg.str("tasks.lint");
  if (lint == "warn")
    o.lint = AgentOptions::Lint::Warn;
  else if (lint == "skip")
    o.lint = AgentOptions::Lint::Skip;
  else if (lint == "off")
    o.lint = AgentOptions::Lint::Off;
  else
    throw UsageError("tasks.lint is '" + lint + "': use warn, skip or off");
  o.memory = memory_params(cfg);
  o.confirm = cfg.boolean("agent.confirm");
  o.confirm_band = cfg.real("agent.confirm_band");
  if (!(o.confirm_band >= 0)) throw UsageError("agent.confirm_band must be 0 or more (0.25: 25%)");
  o.completion.temperature = cfg.real("llm.temperature");
  o.completion.max_tokens = static_cast<int>(cfg.integer("llm.max_tokens"));
  return o;
}

// The eager baseline the run's speed-ups will be against (tasks/baseline.h), checked before
// anything is written: a crippled one (the reference BLAS) refuses the run unless
// --allow-slow-baseline, and a resumed run keeps the baseline it started with.
json checked_baseline(Context& ctx, const Session& s, const RunArgs& a, const Backend& backend,
                      const OracleOptions& oracle) {
  BaselineCheck c = check_baseline(ctx.workspace(), oracle, false);
  const json stored =
      s.info.options.is_object() ? s.info.options.value("baseline", json()) : json();
  const bool allowed = a.allow_slow_baseline || baseline_slow(stored);
  // A modeled backend's verdicts compare with its cost model's eager, not this one.
  const bool modeled = backend.modeled_latency();
  if (!c.health.ok && !modeled && !allowed) throw UsageError(c.health.problem);
  json record = baseline_record(c.baseline, c.health, c.fma_gflops, modeled, allowed);
  if (stored.is_object() && stored.value("key", "") != record["key"].get<std::string>())
    throw UsageError(fmt::format(
        "run {} measured eager as {}; this machine's oracle now runs {}: resumed, its speed-ups "
        "would mix two baselines; restore the first (oracle.python, the libblas.so.3 "
        "alternative) or start a new run",
        s.info.id, EagerBaseline::from_json(stored).describe(), c.baseline.describe()));
  return stored.is_object() ? stored : record;
}

// The run's model auditor and policy as its stored config says; null when it had none.
json run_auditor(const RunInfo& info) {
  const json cfg =
      info.options.is_object() ? info.options.value("config", json::object()) : json::object();
  const std::string model = cfg.value("audit.model", "");
  if (model.empty()) return nullptr;
  return {{"model", model}, {"policy", cfg.value("audit.policy", "withhold")}};
}

void print_results(Workspace& run_ws, const RunInfo& info, bool as_json) {
  AttemptLog log(run_ws);
  auto tasks = log.tasks();
  auto attempts = log.all();
  Metrics all = compute_metrics(tasks, attempts, info.budget);
  auto builds = run_builds(info);
  std::string label = fmt::format(
      "run {} — method {}, model {}{}, suite {}, budget {}", info.id, info.method, info.model,
      info.simulated ? " (SIMULATED: offline sim coder, not an LLM)" : "", info.suite, info.budget);
  if (!builds.empty()) label += "\nbuild: " + join_builds(builds);
  if (const json au = run_auditor(info); !au.is_null())
    label += fmt::format("\nmodel auditor: {} (audit.policy = {})", au["model"].get<std::string>(),
                         au["policy"].get<std::string>());
  if (as_json) {
    const json baseline = run_baseline(info);
    json j = {{"run", info.id},         {"method", info.method},
              {"model", info.model},    {"simulated", info.simulated},
              {"suite", info.suite},    {"budget", info.budget},
              {"baseline", baseline},   {"slow_baseline", baseline_slow(baseline)},
              {"builds", builds},       {"auditor", run_auditor(info)},
              {"overall", to_json(all)}};
    std::set<int> levels;
    for (const auto& t : tasks) levels.insert(t.level);
    for (int l : levels)
      j["levels"][std::to_string(l)] = to_json(compute_metrics(tasks, attempts, info.budget, {l}));
    std::cout << j.dump(1) << "\n";
    return;
  }
  std::cout << format_metrics(all, label);
  std::cout << "  " << run_baseline_line(info) << "\n";
  std::set<int> levels;
  for (const auto& t : tasks) levels.insert(t.level);
  if (levels.size() > 1)
    for (int l : levels) {
      Metrics m = compute_metrics(tasks, attempts, info.budget, {l});
      std::cout << fmt::format("  level {}: Acc {:.1f}% ({}/{}), CR {:.1f}%, fast_1 {:.1f}%\n", l,
                               100 * m.acc, m.solved, m.tasks, 100 * m.compilation_rate,
                               100 * m.fast_p[1]);
    }
}

// One tiny request before anything is written, so an unreachable endpoint or a rejected key is
// a usage error with the diagnosis, not a run full of failed attempts.
void preflight(Provider& llm, const char* url_key = "llm.base_url") {
  CompletionOptions o;
  o.max_tokens = 1;
  o.temperature = 0;
  o.task = "preflight";
  try {
    llm.complete({{"user", "Reply with OK."}}, o);
  } catch (const ProviderError& e) {
    std::string why = e.what();
    std::replace(why.begin(), why.end(), '\n', ' ');
    throw UsageError("cannot reach the LLM endpoint: " + why + " (check " + std::string(url_key) +
                     " and the API key; `evokernel llm ping` diagnoses)");
  }
}

// The run's model auditor (audit.model; null when empty): its own provider, on audit.base_url
// when set, sharing the coder's accountant so that the run's budgets and totals hold both.
struct RunAuditor {
  std::unique_ptr<Provider> llm;
  std::shared_ptr<const Auditor> auditor;
};
RunAuditor make_run_auditor(const Config& cfg, std::shared_ptr<Accountant> accountant) {
  const AuditPolicy policy = audit_policy_from(cfg.str("audit.policy"));  // checked even when off
  const std::string model = cfg.str("audit.model");
  if (model.empty()) return {};
  if (model == "sim")
    throw UsageError(
        "audit.model is sim: the offline sim coder cannot review kernels; give the "
        "auditor openai:MODEL, \"cmd:TOOL ARGS\" or replay:FILE");
  Config own = cfg;
  if (const std::string url = cfg.str("audit.base_url"); !url.empty())
    own.set("llm.base_url", url, "audit.base_url");
  RunAuditor r;
  r.llm = make_provider(model, own, std::move(accountant));
  r.auditor = std::make_shared<Auditor>(*r.llm, model, policy,
                                        static_cast<int>(cfg.integer("llm.max_tokens")));
  return r;
}

// Runs (or resumes) one synthesis run; returns its id.
int64_t run_once(Context& ctx, const RunArgs& a) {
  RunStore store(ctx.workspace());
  Session s = resolve_session(ctx, a, store);
  Config& cfg = ctx.config();
  apply_executor_flags(cfg, a.exec);  // also over a resumed run's stored choice
  std::vector<Suite> suites;
  for (const auto& name : split_csv_list(s.info.suite))
    suites.push_back(load_suite(ctx.workspace(), name, oracle_options(ctx.config())));
  if (suites.empty()) throw UsageError("--suite is empty: give builtin:NAME or a folder");
  if (s.level >= 0)
    for (auto& su : suites)
      for (auto& t : su.tasks)
        if (t.level == 0) t.level = s.level;
  auto tasks = select_tasks(suites, s.task_ids, s.curriculum);
  auto backend = make_backend(s.info.backend);
  auto accountant = Accountant::from_config(cfg);
  auto llm = make_provider(s.info.model, cfg, accountant);  // a missing key fails here
  RunAuditor auditor = make_run_auditor(cfg, accountant);
  s.info.simulated = llm->simulated();
  if (s.info.model.rfind("openai:", 0) == 0 && !a.dry_run) preflight(*llm);
  if (cfg.str("audit.model").rfind("openai:", 0) == 0 && !a.dry_run)
    preflight(*auditor.llm, cfg.str("audit.base_url").empty() ? "llm.base_url" : "audit.base_url");
  AgentOptions opt = agent_options(ctx, s);
  opt.auditor = auditor.auditor;

  if (a.dry_run) {
    fs::path tmp = fs::temp_directory_path() / fmt::format("evk-dry-run-{}", ::getpid());
    {
      Workspace scratch(tmp);
      Verifier verifier(ctx.workspace(), opt.oracle);
      Agent agent(ctx.workspace(), scratch, *llm, verifier, *backend, opt);
      std::cout << agent.first_prompt(*tasks.front());
    }
    fs::remove_all(tmp);
    return 0;
  }

  Verifier verifier(ctx.workspace(), opt.oracle);
  auto executor = make_executor(ctx, verifier, opt.oracle, 1);  // slurm: checked before any write
  // Verified here, every attempt would end `no_device`: a whole budget of LLM calls for nothing.
  if (executor->name() == "local")
    if (auto why = backend->device_unavailable())
      throw UsageError(
          fmt::format("--backend {} cannot run kernels on this machine: {}; run "
                      "where the device is, or verify there with --executor slurm",
                      backend->name(), *why));
  const json baseline = checked_baseline(ctx, s, a, *backend, opt.oracle);
  if (s.info.id == 0) {
    for (const auto* t : tasks) s.info.tasks.push_back(t->id);
    json config = json::object();
    for (const auto& [k, v] : cfg.values())
      if (k != "llm.api_key") config[k] = v.value;
    s.info.options = {{"prompt_dir", s.prompt_dir},
                      {"curriculum", s.curriculum},
                      {"freeze_memory", s.freeze_memory},
                      {"config", config},
                      {"memory_from", s.memory_from},
                      {"exclude_tasks", s.exclude_tasks},
                      {"level", s.level},
                      {"learn_q", opt.method.learn_q && !s.freeze_memory},
                      {"baseline", baseline}};
    s.info.id = store.create(s.info);
    store.record_build(s.info.id, build_string());
  } else {
    store.set_status(s.info.id, RunStatus::Running);
    std::string before = store.record_build(s.info.id, build_string());
    if (!before.empty() && !a.quiet)
      std::cout << fmt::format(
          "run {}: resumed by {}, made by {}: its attempts so far were "
          "verified by the other build\n",
          s.info.id, build_string(), before);
  }
  Workspace run_ws(store.run_dir(s.info.id));
  auto guard =
      cancel_jobs_on_signal(*executor, fmt::format("continue the run with --resume {}", s.info.id));
  std::shared_ptr<ProgressPrinter> printer;
  Agent agent(ctx.workspace(), run_ws, *llm, *executor, *backend, opt,
              progress_listener(a, s.info.budget, printer));
  if (!s.memory_from.empty() && agent.log().count() == 0) {
    auto excluded = split_csv_list(s.exclude_tasks);
    size_t n = agent.memory().import_jsonl(s.memory_from, {excluded.begin(), excluded.end()});
    if (!a.quiet) std::cout << fmt::format("loaded {} memory items from {}\n", n, s.memory_from);
  }
  if (!a.quiet && !a.json_events)
    std::cout << fmt::format(
        "run {}: {} task(s), method {}, model {}{}, budget {}\n", s.info.id, tasks.size(),
        s.info.method, s.info.model,
        s.info.simulated ? " (simulated; edge-case and second-shape checks off)" : "",
        s.info.budget);
  if (!a.quiet && !a.json_events) std::cout << baseline_line(baseline) << "\n";
  try {
    agent.run(tasks);
    if (printer) printer->finish();
  } catch (const BudgetExceeded& e) {
    if (printer) printer->finish();
    store.set_status(s.info.id, RunStatus::Stopped);
    std::cerr << "evokernel: run " << s.info.id << " stopped: " << e.what()
              << " (raise the budget and continue with --resume " << s.info.id << ")\n";
    return s.info.id;
  } catch (...) {
    if (printer) printer->finish();
    store.set_status(s.info.id, RunStatus::Interrupted);
    throw;
  }
  store.set_status(s.info.id, RunStatus::Done);
  if (!a.json_events) print_results(run_ws, store.get(s.info.id), false);
  return s.info.id;
}

void add_run_options(CLI::App* c, RunArgs& a) {
  c->add_option("--suite", a.suite,
                "builtin:NAME or a folder of KernelBench task files; several, comma-separated");
  c->add_option("--tasks", a.tasks, "comma-separated task ids (default: the whole suite)");
  c->add_option("--model", a.model,
                "openai:MODEL, \"cmd:TOOL ARGS\" (your program per request: the messages as "
                "JSON on stdin, the reply on stdout), replay:CASSETTE.jsonl or sim (the offline "
                "simulator); default from config llm.model");
  c->add_option("--auditor", a.auditor,
                "a model that reviews each kernel about to be credited as a task's new best for "
                "reward hacking: openai:MODEL (at audit.base_url, else llm.base_url), \"cmd:TOOL "
                "ARGS\" or replay:CASSETTE.jsonl; off by default (config audit.model; what a "
                "suspicious answer does: audit.policy = withhold|warn)");
  c->add_option("--budget", a.budget, "attempts per task, drafting and refining together (30)");
  c->add_option("--seed", a.seed, "seed of the run (retrieval, sampling, the sim coder)");
  c->add_option("--parallel-tasks", a.parallel_tasks,
                "tasks worked on at once; memory writes still go through one writer");
  c->add_option("--curriculum", a.curriculum, "given (suite order) or level (easier levels first)");
  c->add_option("--level", a.level,
                "level of the tasks whose folder (levelN) and manifest (evokernel-suite.json) "
                "do not say; kept on --resume");
  c->add_flag("--skip-degenerate", a.skip_degenerate,
              "leave out tasks the fairness lint finds degenerate (`evokernel tasks check`), "
              "recorded as skipped; without it they are only warned about (config tasks.lint)");
  c->add_option("--backend", a.backend,
                "target backend: " + backend_help() +
                    " (default cpu); it decides the memory's knowledge bundle, the prompt, the "
                    "verifier and the sim's code");
  c->add_option("--prompt-dir", a.prompt_dir, "folder with your copies of prompts/*.md");
  c->add_option("--memory-from", a.memory_from,
                "start from a memory exported with `evokernel memory export`");
  c->add_option("--exclude-tasks", a.exclude_tasks,
                "with --memory-from: drop the items that came from these tasks (comma-separated)");
  c->add_flag("--freeze-memory", a.freeze_memory,
              "read-only memory: no items written, no Q updates (held-out evaluation)");
  c->add_flag("--allow-slow-baseline", a.allow_slow_baseline,
              "run even where PyTorch eager's GEMM is below 10% of the machine's FMA peak (the "
              "reference BLAS; see `evokernel doctor`); the run and its figures are marked SLOW "
              "BASELINE");
  c->add_flag("--quiet", a.quiet, "no progress lines");
  c->add_flag("--json", a.json_events, "progress as JSON Lines events on stdout");
  add_executor_options(c, a.exec);
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  static RunArgs a;
  auto* run = app.add_subcommand(
      "run",
      "Synthesise kernels for a suite: per task, cold-start drafting until a kernel is feasible, "
      "then continual refining, over one value-driven memory shared by all tasks");
  add_run_options(run, a);
  run->add_option("--method", a.method, "evokernel (default), passk, refine or rag");
  run->add_option("--resume", a.resume, "continue run RUN where it stopped (even after SIGKILL)");
  run->add_flag("--dry-run", a.dry_run, "print the first prompt and exit; nothing is written");
  run->callback([&ctx] { run_once(ctx, a); });

  static std::string which;
  static bool as_json = false;
  auto* results = app.add_subcommand(
      "results", "Metrics of a run: compilation rate, Acc, fast_p, speed-ups, Acc per attempt");
  results->add_option("RUN", which, "run id (default: the latest)");
  results->add_flag("--json", as_json, "print JSON");
  results->callback([&ctx] {
    RunStore store(ctx.workspace());
    RunInfo info = store.get(store.resolve(which));
    Workspace run_ws(store.run_dir(info.id));
    print_results(run_ws, info, as_json);
  });

  auto* runs = app.add_subcommand("runs", "List the runs in the workspace");
  runs->callback([&ctx] {
    RunStore store(ctx.workspace());
    std::cout << fmt::format("{:>4}  {:<20}  {:<11}  {:<9}  {:<22}  {:<18}  {:>5}  {}\n", "id",
                             "created", "status", "method", "model", "suite", "tasks", "budget");
    for (const auto& r : store.list())
      std::cout << fmt::format("{:>4}  {:<20}  {:<11}  {:<9}  {:<22}  {:<18}  {:>5}  {}\n", r.id,
                               r.created, run_status_name(r.status), r.method,
                               r.model + (r.simulated ? " (sim)" : ""), r.suite, r.tasks.size(),
                               r.budget);
  });

  static std::string methods = "evokernel,passk,refine,rag";
  auto* bench = app.add_subcommand(
      "bench", "Run several methods with the same seed, budget and verifier; print one table");
  add_run_options(bench, a);
  bench->add_option("--methods", methods, "comma-separated methods");
  bench->callback([&ctx] {
    std::vector<std::pair<std::string, int64_t>> done;
    for (const auto& m : split_csv_list(methods)) {
      RunArgs each = a;
      each.method = m;
      each.quiet = true;
      done.emplace_back(m, run_once(ctx, each));
    }
    RunStore store(ctx.workspace());
    std::cout << fmt::format("\n{:<10} {:>5} {:>7} {:>7} {:>8} {:>8} {:>10}\n", "method", "run",
                             "CR", "Acc", "fast_1", "fast_1.5", "x first");
    for (const auto& [m, id] : done) {
      RunInfo info = store.get(id);
      Workspace run_ws(store.run_dir(id));
      AttemptLog log(run_ws);
      Metrics x = compute_metrics(log.tasks(), log.all(), info.budget);
      std::cout << fmt::format("{:<10} {:>5} {:>6.1f}% {:>6.1f}% {:>7.1f}% {:>7.1f}% {:>9.2f}x\n",
                               m, id, 100 * x.compilation_rate, 100 * x.acc, 100 * x.fast_p[1],
                               100 * x.fast_p[1.5], x.speedup_over_first.median);
    }
    if (!done.empty()) std::cout << run_baseline_line(store.get(done.front().second)) << "\n";
    if (!done.empty() && store.get(done.front().second).simulated)
      std::cout << "(SIMULATED: model sim is the offline coder, not an LLM)\n";
  });
}

}  // namespace evk::cli
