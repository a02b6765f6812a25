#include "agent/agent.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

#include "agent/experience_request.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/parallel.h"
#include "core/paths.h"
#include "memory/policy.h"
#include "memory/reward.h"
#include "memory/writers.h"
#include "tasks/lint.h"

namespace evk {

struct Agent::TaskContext {
  const TaskInfo* task = nullptr;
  Reference ref;                     // seed 0: shapes, fx ops and the eager baseline
  std::vector<std::string> ops;      // operator names, for api lookup and queries
  std::vector<Attempt> attempts;     // this task's attempts so far, in order
  std::vector<PromptItem> context;   // what the current prompt shows from memory
  std::vector<PromptAttempt> shown;  // earlier attempts shown (draft)
  const Attempt* start = nullptr;    // refine: the chosen start point
  std::string prompt;
  int index = 0, count = 0;  // the task's place in the run, for events

  const Attempt* best() const {  // fastest feasible, of those the auditor did not withhold
    const Attempt* b = nullptr;
    for (const auto& a : attempts)
      if (credited_feasible(a) && (!b || credited_ms(a.verdict) < credited_ms(b->verdict))) b = &a;
    return b;
  }
};

static bool is_guide(const PromptItem& it) {
  return std::find(it.tags.begin(), it.tags.end(), "guide") != it.tags.end();
}

// The run's Backend is the one source of truth: it names the memory's seed bundle and the
// verifier's target, whatever the options said before.
static AgentOptions bind_backend(AgentOptions opt, const Backend& backend) {
  opt.memory.backend = backend.name();
  opt.verify.backend = backend.name();
  return opt;
}

Agent::Agent(Workspace& ws, Workspace& run_ws, Provider& llm, Verifier& verifier,
             const Backend& backend, AgentOptions opt, AgentListener listener)
    : Agent(ws, run_ws, llm, std::make_unique<LocalExecutor>(verifier), nullptr, backend,
            std::move(opt), std::move(listener)) {}

Agent::Agent(Workspace& ws, Workspace& run_ws, Provider& llm, Executor& executor,
             const Backend& backend, AgentOptions opt, AgentListener listener)
    : Agent(ws, run_ws, llm, nullptr, &executor, backend, std::move(opt), std::move(listener)) {}

Agent::Agent(Workspace& ws, Workspace& run_ws, Provider& llm, std::unique_ptr<Executor> own,
             Executor* executor, const Backend& backend, AgentOptions opt, AgentListener listener)
    : ws_(ws),
      run_ws_(run_ws),
      llm_(llm),
      own_executor_(std::move(own)),
      executor_(executor ? *executor : *own_executor_),
      backend_(backend),
      opt_(bind_backend(std::move(opt), backend)),
      listener_(std::move(listener)),
      templates_(opt_.prompt_dir),
      memory_(run_ws, opt_.memory),
      log_(run_ws) {
  memory_.set_frozen(opt_.freeze_memory || !opt_.method.write_memory);
}

uint64_t Agent::attempt_seed(const std::string& task, int idx) const {
  std::string key = fmt::format("{}/{}/{}", opt_.seed, task, idx);
  uint64_t h = 0;
  for (char c : sha256_hex(key).substr(0, 16)) h = h * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
  return h;
}

// Epsilon after the run's attempts so far (memory.epsilon_decay per attempt). Derived from the
// attempt log, so a resumed run explores exactly as an uninterrupted one. Caller holds writer_.
double Agent::epsilon_now() {
  return opt_.memory.epsilon *
         std::pow(opt_.memory.epsilon_decay, static_cast<double>(log_.count()));
}

void Agent::require_guide() {
  MemoryQuery q;
  q.backend = backend_.name();
  for (const auto& it : to_prompt(memory_.api_items(q)))
    if (is_guide(it) && !it.body.empty()) return;
  throw UsageError(fmt::format(
      "the memory holds no guide for the {0} backend, so a model would be shown an empty "
      "\"## Backend guide\": add {1} (kind api, tag guide) and seed it with `evokernel memory "
      "seed --backend {0}`, or leave memory.auto_seed on",
      backend_.name(), (backend_.knowledge_dir() / "guide.md").string()));
}

void Agent::run(const std::vector<const TaskInfo*>& tasks) {
  {
    std::lock_guard lk(writer_);
    require_guide();
  }
  // The first failure stops the hand-out of tasks; the run stays resumable.
  parallel_for(tasks.size(), opt_.parallel_tasks, [&](size_t i) {
    episode(*tasks[i], static_cast<int>(i) + 1, static_cast<int>(tasks.size()));
  });
}

Agent::TaskContext Agent::load(const TaskInfo& task) {
  TaskContext tc;
  tc.task = &task;
  tc.ref = oracle_reference(ws_, task, 0, opt_.oracle);
  tc.ops = op_names(tc.ref);
  std::lock_guard lk(writer_);
  tc.attempts = log_.for_task(task.id);
  // A resumed task keeps the eager baseline its first attempts were measured against.
  if (!tc.attempts.empty()) return tc;
  // A backend with a modeled latency has a modeled eager baseline too (ascendc): the run's
  // speed-ups must divide model by model, as the verdicts do.
  log_.put_task({task.id, task.level, backend_.eager_ms_for(tc.ref),
                 tc.ref.flops, tc.ref.bytes, !task.fitted.empty(), ""});
  return tc;
}

// Why a prepared task should not be attempted ("" when it should), after the fairness lint;
// a degenerate task that is kept is reported (task_warning).
std::string Agent::lint_verdict(const TaskInfo& task, int index, int count) {
  if (opt_.lint == AgentOptions::Lint::Off) return "";
  LintResult lr = lint_task(ws_, task, opt_.oracle);
  if (lr.degenerate() && opt_.lint == AgentOptions::Lint::Skip)
    return "degenerate: " + lr.summary();
  if ((lr.degenerate() || !lr.ok) && listener_)
    listener_({task.id, index, count, nullptr, "task_warning",
               (lr.ok ? "degenerate (--skip-degenerate leaves it out): " : "") + lr.summary()});
  return "";
}

std::optional<Agent::TaskContext> Agent::prepare(const TaskInfo& task, int index, int count,
                                                 bool resumed) {
  std::string reason;
  if (!task.ok) {
    reason = "broken file: " + task.error;
  } else if (auto it = opt_.skip.find(task.id); it != opt_.skip.end()) {
    reason = it->second;
  } else {
    try {
      TaskContext tc = load(task);
      // Every seed the verifier checks, now: a reference that cannot be made skips the task
      // here, instead of failing each of its attempts later.
      for (int s = 1; s < opt_.verify.seeds; ++s) oracle_reference(ws_, task, s, opt_.oracle);
      oracle_extra_sets(ws_, task, opt_.verify.seeds, kVariantSets, opt_.oracle);
      reason = lint_verdict(task, index, count);
      if (reason.empty()) return tc;
    } catch (const OracleError& e) {
      reason = std::string(why_name(e.why)) + ": " + e.what();
    }
  }
  if (resumed) {
    // Its attempts and eager baseline stay as recorded: it counts with what it has, and the
    // next resume tries again.
    if (listener_)
      listener_(
          {task.id, index, count, nullptr, "task_warning", "not continued this time: " + reason});
    return std::nullopt;
  }
  {
    std::lock_guard lk(writer_);
    log_.put_task({task.id, task.level, 0, 0, 0, !task.fitted.empty(), reason});
  }
  if (listener_) listener_({task.id, index, count, nullptr, "task_skipped", reason});
  return std::nullopt;
}

void Agent::episode(const TaskInfo& task, int index, int count) {
  size_t made;
  {
    std::lock_guard lk(writer_);
    made = log_.for_task(task.id).size();
  }
  // Invariant: a task's record and attempts are final once its budget is spent. A resumed run
  // does not prepare it again: its references may no longer be computable under this
  // machine's load or this oracle, and its eager baseline must stay the one it was run against.
  if (made >= static_cast<size_t>(opt_.budget)) return;
  std::optional<TaskContext> prepared = prepare(task, index, count, made > 0);
  if (!prepared) return;
  TaskContext& tc = *prepared;
  tc.index = index;
  tc.count = count;
  if (listener_) listener_({task.id, index, count, nullptr, "task_start", ""});
  for (int idx = static_cast<int>(tc.attempts.size()) + 1; idx <= opt_.budget; ++idx) {
    bool drafting = !opt_.method.refine_stage || !tc.best();
    Attempt a = drafting ? draft(tc, idx) : refine(tc, idx);
    tc.attempts.push_back(std::move(a));
    if (listener_) listener_({task.id, index, count, &tc.attempts.back(), "attempt", ""});
  }
  if (listener_) listener_({task.id, index, count, nullptr, "task_done", ""});
}

// An earlier attempt as the prompt shows it; children of a start point are shown without code.
static PromptAttempt shown_attempt(const Attempt& a, const std::string& code) {
  return {.idx = a.idx,
          .stage = a.stage,
          .category = a.verdict.category,
          .feedback = a.verdict.feedback,
          .code = code,
          .latency_ms = a.verdict.latency_ms};
}

// The query state (docs/architecture.md §3, step 1): the task's source, its fx op list and the
// category of the last attempt's failure, if it failed; retrieval (§5) weights ops and category up.
static MemoryQuery query_for(const Agent::TaskContext& tc, const std::string& backend,
                             std::vector<ItemKind> kinds) {
  MemoryQuery q;
  q.backend = backend;
  q.op_names = tc.ops;
  if (!tc.attempts.empty() && !tc.attempts.back().verdict.feasible)
    q.error_category = category_name(tc.attempts.back().verdict.category);
  q.text = tc.task->source + "\n" + render_fx_ops(tc.ref) + "\n" + q.error_category;
  q.kinds = std::move(kinds);
  return q;
}

// Attempt `idx` of the task at `stage`, before it is asked.
static Attempt new_attempt(const Agent::TaskContext& tc, int idx, Stage stage) {
  Attempt a;
  a.task = tc.task->id;
  a.idx = idx;
  a.stage = stage;
  return a;
}

Attempt Agent::draft(TaskContext& tc, int idx) {
  Attempt a = new_attempt(tc, idx, Stage::Draft);
  std::vector<int64_t> context;
  {
    std::lock_guard lk(writer_);
    context = gather_context(tc, query_for(tc, backend_.name(), {}), Stage::Draft, idx);
  }
  tc.shown.clear();
  if (opt_.method.show_attempts) {
    size_t from = tc.attempts.size() > static_cast<size_t>(opt_.history)
                      ? tc.attempts.size() - static_cast<size_t>(opt_.history)
                      : 0;
    for (size_t i = from; i < tc.attempts.size(); ++i) {
      const Attempt& p = tc.attempts[i];
      if (is_infra(p.verdict.category)) continue;  // nothing the model could act on
      tc.shown.push_back(shown_attempt(p, p.code));
    }
  }
  ask_and_verify(tc, a, templates_.draft(prompt_inputs(tc)), context);
  finish(tc, a, context, Stage::Draft);
  return a;
}

// Start point (evokernel): chosen among the feasible attempts by the retrieval policy's own
// value rule (memory/policy.h) over their traces' Q2, with the run's decayed epsilon; ties go
// to the faster kernel. Without start_by_q, or with one feasible attempt, the fastest.
static const Attempt* choose_start(const Agent::TaskContext& tc, Memory& memory, bool by_q,
                                   double epsilon, uint64_t seed) {
  std::vector<const Attempt*> feasible;
  for (const auto& a : tc.attempts)
    if (credited_feasible(a)) feasible.push_back(&a);
  if (!by_q || feasible.size() < 2) return tc.best();
  std::vector<PoolEntry> pool;
  for (const Attempt* a : feasible)
    pool.push_back({.id = a->id,
                    .similarity = -credited_ms(a->verdict),  // the tie-break: faster first
                    .q = a->trace_item ? memory.q(a->trace_item, Stage::Refine) : 0});
  std::mt19937_64 rng(seed);
  return feasible[choose(pool, Policy::Value, 1, epsilon, 0, rng).at(0)];
}

Attempt Agent::refine(TaskContext& tc, int idx) {
  Attempt a = new_attempt(tc, idx, Stage::Refine);
  std::vector<int64_t> context;
  {
    std::lock_guard lk(writer_);
    tc.start = choose_start(tc, memory_, opt_.method.start_by_q, epsilon_now(),
                            attempt_seed(a.task, idx) ^ 0x5eedULL);
    MemoryQuery q = query_for(tc, backend_.name(), {ItemKind::BestPractice, ItemKind::Trace});
    q.bound = start_bound(tc);
    context = gather_context(tc, q, Stage::Refine, idx);
    // The start point's own trace is shown as the start point, not again as a memory item
    // (it is credited as the start point below).
    if (const int64_t own = tc.start->trace_item) {
      std::erase(context, own);
      std::erase_if(tc.context, [own](const PromptItem& it) { return it.id == own; });
    }
  }
  a.start_point = tc.start->id;
  ask_and_verify(tc, a, templates_.refine(prompt_inputs(tc)), context);
  // The start point is credited with the outcome too (docs/architecture.md §5).
  if (tc.start->trace_item) context.push_back(tc.start->trace_item);
  finish(tc, a, context, Stage::Refine);
  return a;
}

void Agent::ask_and_verify(TaskContext& tc, Attempt& a, std::string prompt,
                           const std::vector<int64_t>& context) {
  tc.prompt = std::move(prompt);
  a.prompt = tc.prompt;
  a.context_ids = context;
  CompletionOptions co = opt_.completion;
  co.seed = attempt_seed(a.task, a.idx);
  co.task = a.task;
  Completion c = llm_.complete({{"system", templates_.system()}, {"user", tc.prompt}}, co);
  a.reply = c.text;
  a.prompt_tokens = c.usage.prompt_tokens;
  a.completion_tokens = c.usage.completion_tokens;
  a.cost_usd = c.cost_usd;
  a.llm_s = c.latency_s;
  // The server stopped at max_tokens: a reasoning model can spend them all before the code, or
  // the code itself can be cut. The model is told in its feedback, the user once per run.
  const bool cut = c.finish_reason == "length";
  if (cut && listener_ && !cut_warned_.exchange(true))
    listener_({a.task, tc.index, tc.count, nullptr, "task_warning",
               fmt::format("a reply stopped at the token limit (llm.max_tokens = {}, finish_reason "
                           "length): raise llm.max_tokens, or lower the model's reasoning effort",
                           co.max_tokens)});
  const std::string cut_note =
      fmt::format("your reply was cut at the token limit ({} tokens){}: ", co.max_tokens,
                  c.text.empty() && !c.reasoning.empty() ? ", all of it spent on reasoning" : "");
  auto code = extract_code(c.text);
  if (!code) {
    a.verdict.category = Category::NoCode;
    a.verdict.feedback = (cut ? cut_note + "it held no fenced code block. Reason less, and "
                              : "the reply held no fenced code block: ") +
                         std::string("answer with the whole source in one ```cpp block");
    return;
  }
  a.code = *code;
  a.verify_s = 0;
  for (int tries = 0;; ++tries) {  // the machinery failing is retried; the kernel is not
    a.verdict = executor_.verify(*tc.task, a.code, opt_.verify);
    a.verify_s += a.verdict.wall_s;
    if (a.verdict.category != Category::Infra || tries >= opt_.infra_retries) break;
  }
  if (cut && !a.verdict.feasible)
    a.verdict.feedback = cut_note +
                         "the source may be incomplete; write it with less text around it.\n" +
                         a.verdict.feedback;
}

// An attempt's end, as in the paper's loop: its reward, what is learned from it (Q), what is
// remembered of it (memory items), then the log. An infra verdict says nothing about the
// kernel (docs/architecture.md §6): logged, so the budget and resume stay exact, but no
// reward, no Q update, no memory item.
void Agent::finish(TaskContext& tc, Attempt& a, std::vector<int64_t> context, Stage stage) {
  std::sort(context.begin(), context.end());  // each item is credited once
  context.erase(std::unique(context.begin(), context.end()), context.end());
  if (is_infra(a.verdict.category)) {
    a.reward_raw = a.reward = 0;
    std::lock_guard lk(writer_);
    run_ws_.db().transaction([&] { a.id = log_.insert(a); });
    return;
  }
  reward(tc, a, stage);
  audit(tc, a);  // model calls, no lock held
  const std::string experience = model_experience(tc, a, stage);
  std::lock_guard lk(writer_);
  if (a.audit.withheld) {  // no credit: no reward, no Q update; remembered as not credited
    a.reward_raw = a.reward = 0;
    run_ws_.db().transaction([&] {
      if (opt_.method.write_memory && !opt_.freeze_memory) remember(tc, a, stage, "");
      a.id = log_.insert(a);
    });
    return;
  }
  run_ws_.db().transaction([&] {
    learn(tc, a, context, stage);
    if (opt_.method.write_memory && !opt_.freeze_memory) remember(tc, a, stage, experience);
    a.id = log_.insert(a);
    memory_.record_provenance(fmt::format("{}#{}", a.task, a.idx), context, stage, a.reward);
  });
}

// r_draft for a draft; r_refine against the best so far for a refinement, from the confirmed
// ratio when the speed-up needed confirming (not the separate measurement).
void Agent::reward(TaskContext& tc, Attempt& a, Stage stage) {
  if (stage == Stage::Draft) {
    a.reward_raw = a.reward = draft_reward(a.verdict.feasible);
    return;
  }
  const Attempt& best = *tc.best();
  const double best_ms = credited_ms(best.verdict);
  a.reward_raw = refine_reward(a.verdict.feasible, best_ms, a.verdict.latency_ms);
  if (auto c = confirm_speedup(tc, a, best))
    a.reward_raw = c->faster ? std::tanh(std::log(c->ratio))
                             : refine_reward(true, best_ms, credited_ms(a.verdict));
}

// The Monte-Carlo Q update of every context item, with the refine reward normalised first.
// Caller holds writer_.
void Agent::learn(TaskContext& tc, Attempt& a, const std::vector<int64_t>& context, Stage stage) {
  if (stage == Stage::Refine)
    a.reward = opt_.method.learn_q ? memory_.normalise_refine_reward(a.reward_raw) : a.reward_raw;
  if (!opt_.method.learn_q) return;
  const double credit = memory_.credit(a.task, stage, a.reward);
  memory_.update(context, stage, credit, fmt::format("{}#{}", a.task, a.idx));
  if (stage == Stage::Refine) memory_.update_bound(context, stage, start_bound(tc), credit);
}

// The refining state's bound: the start point's diagnosed bound (core/diagnosis.h), "" when
// unknown or when memory.diagnosis is off.
std::string Agent::start_bound(const TaskContext& tc) const {
  if (!tc.start || !memory_.params().by_bound) return "";
  const Bound b = tc.start->verdict.diagnosis.bound;
  return b == Bound::Unknown ? "" : bound_name(b);
}

// The attempt's trace; a failure-then-fix experience when a draft fixes the failure before it;
// a best practice when a refinement beats the best. Caller holds writer_.
// memory.summarize = model (agent/experience_request.h): for a refinement that will be stored
// as a best practice, the coder's own account of it, or "" (rules only, or an answer that is
// not the schema). Its tokens are the attempt's.
std::string Agent::model_experience(TaskContext& tc, Attempt& a, Stage stage) {
  if (!opt_.memory.model_experiences || !opt_.method.write_memory || opt_.freeze_memory ||
      stage != Stage::Refine || !credited_feasible(a) || !tc.start ||
      credited_ms(a.verdict) >= credited_ms(tc.best()->verdict))
    return "";
  ExperienceRequest r{.backend = backend_.name(),
                      .task = a.task,
                      .attempt = a.idx,
                      .start_attempt = tc.start->idx,
                      .start_ms = tc.start->verdict.latency_ms,
                      .new_ms = a.verdict.latency_ms,
                      .before = tc.start->verdict.diagnosis,
                      .after = a.verdict.diagnosis,
                      .diff = diff_summary(tc.start->code, a.code)};
  CompletionOptions co = opt_.completion;
  co.seed = attempt_seed(a.task, a.idx) ^ 0xe4e7ULL;
  co.task = a.task;
  try {
    Completion c =
        llm_.complete({{"system", templates_.system()}, {"user", experience_request_text(r)}}, co);
    a.prompt_tokens += c.usage.prompt_tokens;
    a.completion_tokens += c.usage.completion_tokens;
    a.cost_usd += c.cost_usd;
    auto e = parse_model_experience(c.text);
    return e ? model_experience_text(*e, c.model.empty() ? "the coder model" : c.model, a.idx) : "";
  } catch (const std::exception&) {
    return "";  // an optional improvement: the rule summary stands (a budget, a lost server)
  }
}

// The model auditor (agent/auditor.h), when the run has one: a feasible kernel that would be
// credited as the task's new best (the first feasible one, or faster than the best after
// confirmation) is reviewed once. What it says other than clean goes into the feedback the
// model sees next; the policy decides whether the credit is withheld (finish()).
void Agent::audit(TaskContext& tc, Attempt& a) {
  const Attempt* best = tc.best();
  if (!opt_.auditor || !a.verdict.feasible ||
      (best && credited_ms(a.verdict) >= credited_ms(best->verdict)))
    return;
  AuditRequest r{.backend = backend_.name(),
                 .language = backend_.language(),
                 .task = a.task,
                 .task_source = tc.task->source,
                 .fitted = {},
                 .stage = a.stage,
                 .attempt = a.idx,
                 .code = a.code,
                 .verdict = a.verdict};
  for (const auto& [name, fit] : tc.task->fitted)
    r.fitted +=
        fmt::format("{}{} {} -> {}", r.fitted.empty() ? "" : ", ", name, fit.first, fit.second);
  a.audit = opt_.auditor->audit(r, attempt_seed(a.task, a.idx) ^ 0xa0d1ULL);
  a.prompt_tokens += a.audit.prompt_tokens;
  a.completion_tokens += a.audit.completion_tokens;
  a.cost_usd += a.audit.cost_usd;
  if (a.audit.outcome != AuditOutcome::Clean) a.verdict.feedback += "\n" + audit_line(a.audit);
}

void Agent::remember(TaskContext& tc, Attempt& a, Stage stage, const std::string& experience) {
  const Attempt* best = tc.best();  // null while drafting with nothing feasible yet
  const bool credited = credited_feasible(a);
  const std::optional<int64_t> parent = stage == Stage::Refine && tc.start->trace_item
                                            ? std::optional<int64_t>(tc.start->trace_item)
                                            : std::nullopt;
  a.trace_item = memory_.add(make_trace(
      {.task = a.task,
       .backend = backend_.name(),
       .ops = tc.ops,
       .code = a.code,
       .category = a.verdict.category,
       .feedback = a.verdict.feedback,
       .feasible = credited,
       .latency_ms = credited ? std::optional<double>(a.verdict.latency_ms) : std::nullopt,
       .parent = parent}));
  const std::optional<int64_t> trace =
      a.trace_item ? std::optional<int64_t>(a.trace_item) : std::nullopt;
  if (stage == Stage::Draft && credited && !tc.attempts.empty() &&
      !credited_feasible(tc.attempts.back())) {
    const Attempt& failed = tc.attempts.back();
    memory_.add(make_experience({.task = a.task,
                                 .backend = backend_.name(),
                                 .ops = tc.ops,
                                 .failed_code = failed.code,
                                 .category = failed.verdict.category,
                                 .feedback = failed.verdict.feedback,
                                 .fixed_code = a.code,
                                 .parent = trace}));
  }
  if (stage == Stage::Refine && credited && best &&
      credited_ms(a.verdict) < credited_ms(best->verdict)) {
    Item bp = make_best_practice({.task = a.task,
                                  .backend = backend_.name(),
                                  .ops = tc.ops,
                                  .start_code = tc.start->code,
                                  .start_ms = tc.start->verdict.latency_ms,
                                  .new_code = a.code,
                                  .new_ms = a.verdict.latency_ms,
                                  .parent = trace,
                                  .before = tc.start->verdict.diagnosis,
                                  .after = a.verdict.diagnosis});
    if (!experience.empty()) {  // the model's account above the rule summary, marked as its
      bp.body = experience + bp.body;
      bp.tags.push_back("model_written");
    }
    memory_.add(bp);
  }
}

// Confirmation before credit (verify/confirm.h): a refinement that beats the best by less than
// the noise band is re-timed interleaved with it. Not confirmed faster, it is credited with the
// best's latency (a tie: it does not become the best nor write a best practice) or slower; the
// verdict keeps its own measurement and shows both figures. A modeled latency (a cost model,
// deterministic) needs none. nullopt when no confirmation was needed.
std::optional<Confirmation> Agent::confirm_speedup(TaskContext& tc, Attempt& a,
                                                   const Attempt& best) {
  Verdict& v = a.verdict;
  const double best_ms = credited_ms(best.verdict);
  if (!opt_.confirm || !v.feasible || v.latency_ms <= 0 || v.latency_ms >= best_ms ||
      v.metrics.contains("modeled") || best.code.empty())
    return std::nullopt;
  double separate = best_ms / v.latency_ms;
  double noise =
      v.latency_iqr_ms / v.latency_ms +
      (best.verdict.latency_ms > 0 ? best.verdict.latency_iqr_ms / best.verdict.latency_ms : 0);
  double band = std::max(opt_.confirm_band, noise);
  if (separate >= 1 + band) return std::nullopt;
  Confirmation c = executor_.confirm(*tc.task, best.code, a.code, opt_.verify);
  nlohmann::json j = c.to_json();
  j["separate_ratio"] = separate;
  j["band"] = band;
  j["credited_ms"] =
      !c.ran || !c.faster ? best_ms / std::clamp(c.ran ? c.ratio : 1.0, 1e-9, 1.0) : v.latency_ms;
  v.metrics["confirm"] = j;
  v.feedback += c.ran ? fmt::format(
                            "\nre-timed interleaved with the best (attempt {}, {} rounds): "
                            "{:.3f}x measured separately, {:.3f}x side by side (quartiles "
                            "{:.3f}-{:.3f}, faster in {} of {} rounds): {}",
                            best.idx, c.rounds, separate, c.ratio, c.ratio_q1, c.ratio_q3, c.wins,
                            c.rounds, c.faster ? "confirmed faster" : "not confirmed faster")
                      : fmt::format(
                            "\n{:.3f}x faster measured separately, within the noise band "
                            "({:.0f}%), and not confirmed ({}): not credited as faster",
                            separate, 100 * band, c.note);
  return c;
}

// The context of one attempt's prompt: the backend's documentation, then the items retrieved
// for the stage by the method's policy. Returns the retrieved ids (the items Q is learned for).
// Caller holds writer_.
std::vector<int64_t> Agent::gather_context(TaskContext& tc, const MemoryQuery& q, Stage stage,
                                           int idx) {
  tc.context = api_context(q);
  std::vector<int64_t> ids;
  if (opt_.method.policy == Policy::None) return ids;
  for (const auto& r : memory_.retrieve(q, stage, attempt_seed(tc.task->id, idx),
                                        opt_.method.policy, epsilon_now())) {
    ids.push_back(r.item.id);
    tc.context.push_back(to_prompt({r.item}).front());
  }
  return ids;
}

PromptInputs Agent::prompt_inputs(const TaskContext& tc) const {
  PromptInputs in;
  in.backend = backend_.name();
  in.language = backend_.language();
  in.source_filename = backend_.source_filename();
  in.timing_note = backend_.timing_note(opt_.verify.threads);
  in.task = tc.task;
  in.ref = &tc.ref;
  // The always-on guide is the api item tagged "guide"; the others go with the memory.
  for (const auto& it : tc.context) {
    if (is_guide(it))
      in.guide = it.body;
    else
      in.memory.push_back(it);
  }
  in.attempts = tc.shown;
  if (tc.start) {
    const Attempt& s = *tc.start;
    in.start_point = shown_attempt(s, s.code);
    in.start_point_roofline = s.verdict.roofline_fraction;
    in.start_point_eager_ms = s.verdict.eager_ms;
    in.start_point_eager_basis = s.verdict.metrics.value("eager_basis", "");
    in.start_point_diagnosis = s.verdict.diagnosis;
    for (const auto& c : tc.attempts)
      if (c.start_point && *c.start_point == s.id) in.children.push_back(shown_attempt(c, ""));
  }
  return in;
}

// The backend's documentation: the always-on guide, plus the api templates named by the task's
// operators (not for passk, whose single demonstration is the guide's worked kernel).
std::vector<PromptItem> Agent::api_context(const MemoryQuery& q) {
  std::vector<PromptItem> out;
  for (auto& it : to_prompt(memory_.api_items(q))) {
    if (is_guide(it) || opt_.method.api_templates) out.push_back(std::move(it));
  }
  return out;
}

std::vector<PromptItem> Agent::to_prompt(const std::vector<Item>& items) const {
  std::vector<PromptItem> out;
  for (const auto& it : items)
    out.push_back({.id = it.id,
                   .kind = kind_name(it.kind),
                   .title = it.title,
                   .body = it.body,
                   .feedback = it.feedback,
                   .code = it.code,
                   .tags = it.tags});
  return out;
}

std::string Agent::first_prompt(const TaskInfo& task) {
  TaskContext tc = load(task);
  std::lock_guard lk(writer_);
  require_guide();
  gather_context(tc, query_for(tc, backend_.name(), {}), Stage::Draft, 1);
  return templates_.system() + "\n---\n" + templates_.draft(prompt_inputs(tc));
}

}  // namespace evk
