#include "run/run_store.h"

#include <fmt/format.h>

#include <ctime>

#include "core/error.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

static std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

RunStore::RunStore(Workspace& ws) : ws_(ws) {
  ws_.migrate("runs", {R"(CREATE TABLE runs(
      id INTEGER PRIMARY KEY, created TEXT NOT NULL, status TEXT NOT NULL, method TEXT NOT NULL,
      model TEXT NOT NULL, suite TEXT NOT NULL, backend TEXT NOT NULL, tasks TEXT NOT NULL,
      budget INTEGER NOT NULL, seed INTEGER NOT NULL, simulated INTEGER NOT NULL,
      options TEXT NOT NULL))"});
}

int64_t RunStore::create(const RunInfo& r) {
  auto s = ws_.db().prepare(
      "INSERT INTO runs(created, status, method, model, suite, backend, tasks, budget, seed,"
      " simulated, options) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, now_iso())
      .bind(2, run_status_name(RunStatus::Running))
      .bind(3, r.method)
      .bind(4, r.model)
      .bind(5, r.suite);
  s.bind(6, r.backend).bind(7, json(r.tasks).dump()).bind(8, r.budget);
  s.bind(9, static_cast<int64_t>(r.seed)).bind(10, r.simulated ? 1 : 0).bind(11, r.options.dump());
  s.run();
  return ws_.db().last_insert_id();
}

const char* run_status_name(RunStatus st) {
  switch (st) {
    case RunStatus::Running:
      return "running";
    case RunStatus::Done:
      return "done";
    case RunStatus::Stopped:
      return "stopped";
    case RunStatus::Interrupted:
      return "interrupted";
  }
  return "interrupted";
}

// A name this build does not write reads as interrupted: resumable, never taken for done.
static RunStatus status_from(const std::string& name) {
  for (RunStatus st : {RunStatus::Running, RunStatus::Done, RunStatus::Stopped})
    if (name == run_status_name(st)) return st;
  return RunStatus::Interrupted;
}

static RunInfo run_from(Stmt& s) {
  RunInfo r;
  r.id = s.int64(0);
  r.created = s.text(1);
  r.status = status_from(s.text(2));
  r.method = s.text(3);
  r.model = s.text(4);
  r.suite = s.text(5);
  r.backend = s.text(6);
  r.tasks = json::parse(s.text(7)).get<std::vector<std::string>>();
  r.budget = static_cast<int>(s.int64(8));
  r.seed = static_cast<uint64_t>(s.int64(9));
  r.simulated = s.int64(10) != 0;
  r.options = json::parse(s.text(11));
  return r;
}

static const char* kRunCols =
    "SELECT id, created, status, method, model, suite, backend, tasks, budget, seed, simulated,"
    " options FROM runs";

RunInfo RunStore::get(int64_t id) {
  auto s = ws_.db().prepare(std::string(kRunCols) + " WHERE id=?");
  s.bind(1, id);
  if (!s.step())
    throw UsageError(fmt::format("no run {} in workspace {}: run `evokernel runs` to list them", id,
                                 ws_.root().string()));
  return run_from(s);
}

std::vector<RunInfo> RunStore::list() {
  return ws_.db().prepare(std::string(kRunCols) + " ORDER BY id").rows(run_from);
}

int64_t RunStore::latest() {
  auto s = ws_.db().prepare("SELECT max(id) FROM runs");
  if (!s.step() || s.is_null(0))
    throw UsageError("workspace " + ws_.root().string() +
                     " holds no run yet: start one with `evokernel run`");
  return s.int64(0);
}

int64_t RunStore::resolve(const std::string& run) {
  if (run.empty() || run == "latest") return latest();
  try {
    size_t pos = 0;
    int64_t id = std::stoll(run, &pos);
    if (pos == run.size()) return get(id).id;
  } catch (const std::invalid_argument&) {
  } catch (const std::out_of_range&) {
  }
  throw UsageError("'" + run + "' is not a run id: give a number from `evokernel runs`");
}

void RunStore::set_status(int64_t id, RunStatus status) {
  auto s = ws_.db().prepare("UPDATE runs SET status=? WHERE id=?");
  s.bind(1, run_status_name(status)).bind(2, id).run();
}

std::vector<std::string> run_builds(const RunInfo& info) {
  std::vector<std::string> out;
  if (!info.options.is_object()) return out;
  auto it = info.options.find("builds");
  if (it == info.options.end() || !it->is_array()) return out;
  for (const auto& b : *it)
    if (b.is_string()) out.push_back(b.get<std::string>());
  return out;
}

std::string join_builds(const std::vector<std::string>& builds) {
  std::string out;
  for (size_t i = 0; i < builds.size(); ++i) out += (i ? ", resumed by " : "") + builds[i];
  return out;
}

std::string RunStore::record_build(int64_t id, const std::string& build) {
  RunInfo info = get(id);
  auto builds = run_builds(info);
  if (!builds.empty() && builds.back() == build) return "";
  std::string previous = builds.empty() ? "" : builds.back();
  if (!info.options.is_object()) info.options = json::object();
  info.options["builds"].push_back(build);
  auto s = ws_.db().prepare("UPDATE runs SET options=? WHERE id=?");
  s.bind(1, info.options.dump()).bind(2, id).run();
  return previous;
}

fs::path RunStore::run_dir(int64_t id) const {
  return ws_.root() / "runs" / std::to_string(id);
}

AttemptLog::AttemptLog(Workspace& ws) : ws_(ws) {
  ws_.migrate("attempts", {R"(CREATE TABLE run_tasks(
      task TEXT PRIMARY KEY, level INTEGER, eager_ms REAL, flops INTEGER, bytes INTEGER,
      fitted INTEGER);
    CREATE TABLE attempts(
      id INTEGER PRIMARY KEY, task TEXT NOT NULL, idx INTEGER NOT NULL, stage TEXT NOT NULL,
      prompt TEXT, reply TEXT, code TEXT, context_ids TEXT, start_point INTEGER,
      trace_item INTEGER, verdict TEXT, feasible INTEGER, compiled INTEGER, category TEXT,
      latency_ms REAL, reward REAL, reward_raw REAL, prompt_tokens INTEGER,
      completion_tokens INTEGER, cost_usd REAL, llm_s REAL, verify_s REAL, created TEXT,
      UNIQUE(task, idx)))",
                           "ALTER TABLE run_tasks ADD COLUMN skipped TEXT",
                           // The model auditor's review (core/audit.h), JSON; NULL: none.
                           "ALTER TABLE attempts ADD COLUMN audit TEXT"});
}

void AttemptLog::put_task(const TaskRecord& t) {
  auto s = ws_.db().prepare(
      "INSERT OR REPLACE INTO run_tasks(task, level, eager_ms, flops, bytes, fitted, skipped)"
      " VALUES(?,?,?,?,?,?,?)");
  s.bind(1, t.task).bind(2, t.level).bind(3, t.eager_ms).bind(4, t.flops).bind(5, t.bytes);
  s.bind(6, t.fitted ? 1 : 0);
  if (t.skipped.empty())
    s.bind_null(7);
  else
    s.bind(7, t.skipped);
  s.run();
}

std::vector<TaskRecord> AttemptLog::tasks() {
  auto s = ws_.db().prepare(
      "SELECT task, level, eager_ms, flops, bytes, fitted, skipped FROM run_tasks ORDER BY rowid");
  std::vector<TaskRecord> out;
  while (s.step())
    out.push_back({.task = s.text(0),
                   .level = static_cast<int>(s.int64(1)),
                   .eager_ms = s.real(2),
                   .flops = s.int64(3),
                   .bytes = s.int64(4),
                   .fitted = s.int64(5) != 0,
                   .skipped = s.is_null(6) ? std::string() : s.text(6)});
  return out;
}

int64_t AttemptLog::insert(const Attempt& a) {
  auto s = ws_.db().prepare(
      "INSERT INTO attempts(task, idx, stage, prompt, reply, code, context_ids, start_point,"
      " trace_item, verdict, feasible, compiled, category, latency_ms, reward, reward_raw,"
      " prompt_tokens, completion_tokens, cost_usd, llm_s, verify_s, created, audit)"
      " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, a.task).bind(2, a.idx).bind(3, stage_name(a.stage)).bind(4, a.prompt).bind(5, a.reply);
  s.bind(6, a.code).bind(7, json(a.context_ids).dump()).bind(8, a.start_point);
  s.bind(9, a.trace_item).bind(10, to_json(a.verdict).dump()).bind(11, a.verdict.feasible ? 1 : 0);
  s.bind(12, a.verdict.compiled ? 1 : 0).bind(13, category_name(a.verdict.category));
  s.bind(14, a.verdict.latency_ms).bind(15, a.reward).bind(16, a.reward_raw);
  s.bind(17, a.prompt_tokens).bind(18, a.completion_tokens).bind(19, a.cost_usd);
  s.bind(20, a.llm_s).bind(21, a.verify_s).bind(22, now_iso());
  if (a.audit.audited())
    s.bind(23, to_json(a.audit).dump());
  else
    s.bind_null(23);
  s.run();
  return ws_.db().last_insert_id();
}

static const char* kAttemptCols =
    "SELECT id, task, idx, stage, prompt, reply, code, context_ids, start_point, trace_item,"
    " verdict, reward, reward_raw, prompt_tokens, completion_tokens, cost_usd, llm_s, verify_s,"
    " created, audit FROM attempts";

static Attempt attempt_from(Stmt& s) {
  Attempt a;
  a.id = s.int64(0);
  a.task = s.text(1);
  a.idx = static_cast<int>(s.int64(2));
  a.stage = stage_from(s.text(3));
  a.prompt = s.text(4);
  a.reply = s.text(5);
  a.code = s.text(6);
  a.context_ids = json::parse(s.text(7)).get<std::vector<int64_t>>();
  if (!s.is_null(8)) a.start_point = s.int64(8);
  a.trace_item = s.int64(9);
  a.verdict = verdict_from_json(json::parse(s.text(10)));
  a.reward = s.real(11);
  a.reward_raw = s.real(12);
  a.prompt_tokens = s.int64(13);
  a.completion_tokens = s.int64(14);
  a.cost_usd = s.real(15);
  a.llm_s = s.real(16);
  a.verify_s = s.real(17);
  a.created = s.text(18);
  if (!s.is_null(19)) a.audit = audit_from_json(json::parse(s.text(19), nullptr, false));
  return a;
}

std::vector<Attempt> AttemptLog::for_task(const std::string& task) {
  auto s = ws_.db().prepare(std::string(kAttemptCols) + " WHERE task=? ORDER BY idx");
  return s.bind(1, task).rows(attempt_from);
}

std::vector<Attempt> AttemptLog::all() {
  return ws_.db().prepare(std::string(kAttemptCols) + " ORDER BY id").rows(attempt_from);
}

int64_t AttemptLog::count() {
  auto s = ws_.db().prepare("SELECT count(*) FROM attempts");
  s.step();
  return s.int64(0);
}

}  // namespace evk
