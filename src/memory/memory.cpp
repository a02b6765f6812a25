#include "memory/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <unordered_map>

#include "core/error.h"
#include "core/hash.h"
#include "core/json_read.h"
#include "core/paths.h"
#include "memory/knowledge.h"
#include "memory/policy.h"

namespace evk {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::vector<std::string> kSchema = {
    // v1
    "CREATE TABLE memory_items("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " kind TEXT NOT NULL, backend TEXT NOT NULL, origin_task TEXT NOT NULL DEFAULT '',"
    " title TEXT NOT NULL, body TEXT NOT NULL, code TEXT NOT NULL DEFAULT '',"
    " feedback TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '[]', latency_ms REAL,"
    " feasible INTEGER NOT NULL DEFAULT 0,"
    " parent INTEGER REFERENCES memory_items(id) ON DELETE SET NULL,"
    " created TEXT NOT NULL, source TEXT, content_hash TEXT NOT NULL,"
    " merged INTEGER NOT NULL DEFAULT 0, terms BLOB NOT NULL);"
    "CREATE INDEX memory_items_hash ON memory_items(content_hash);"
    "CREATE UNIQUE INDEX memory_items_source ON memory_items(source) WHERE source IS NOT NULL;"
    "CREATE INDEX memory_items_task ON memory_items(backend, origin_task, kind);"
    "CREATE INDEX memory_items_parent ON memory_items(parent);"
    "CREATE TABLE memory_q("
    " item_id INTEGER NOT NULL REFERENCES memory_items(id) ON DELETE CASCADE,"
    " stage TEXT NOT NULL, q REAL NOT NULL, visits INTEGER NOT NULL, updated TEXT NOT NULL,"
    " PRIMARY KEY(item_id, stage));"
    "CREATE TABLE memory_normaliser("
    " stage TEXT PRIMARY KEY, n INTEGER NOT NULL, mean REAL NOT NULL, m2 REAL NOT NULL);"
    "CREATE TABLE memory_provenance("
    " attempt_key TEXT NOT NULL,"
    " item_id INTEGER NOT NULL REFERENCES memory_items(id) ON DELETE CASCADE,"
    " stage TEXT NOT NULL, reward REAL NOT NULL, created TEXT NOT NULL,"
    " PRIMARY KEY(attempt_key, item_id));"
    "CREATE INDEX memory_provenance_item ON memory_provenance(item_id);"
    "CREATE TABLE memory_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // v2: running means of rewards per (task, stage) for memory.baseline = task; task ''
    // holds the stage-wide mean, the baseline of a task's first attempt.
    "CREATE TABLE memory_baseline("
    " task TEXT NOT NULL, stage TEXT NOT NULL, n INTEGER NOT NULL, mean REAL NOT NULL,"
    " PRIMARY KEY(task, stage));",
    // v3: every Q update as applied (Memory::update), in order: the Q history of a run.
    "CREATE TABLE memory_q_updates("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT, attempt_key TEXT NOT NULL,"
    " item_id INTEGER NOT NULL REFERENCES memory_items(id) ON DELETE CASCADE,"
    " stage TEXT NOT NULL, credit REAL NOT NULL, q_before REAL NOT NULL, q_after REAL NOT NULL,"
    " created TEXT NOT NULL);"
    "CREATE INDEX memory_q_updates_item ON memory_q_updates(item_id);",
};

constexpr const char* kItemCols =
    "id, kind, backend, origin_task, title, body, code, feedback, tags, latency_ms, feasible, "
    "parent, created";

Item read_item(const Stmt& s) {
  Item it;
  it.id = s.int64(0);
  it.kind = kind_from(s.text(1));
  it.backend = s.text(2);
  it.origin_task = s.text(3);
  it.title = s.text(4);
  it.body = s.text(5);
  it.code = s.text(6);
  it.feedback = s.text(7);
  it.tags = json::parse(s.text(8)).get<std::vector<std::string>>();
  if (!s.is_null(9)) it.latency_ms = s.real(9);
  it.feasible = s.int64(10) != 0;
  if (!s.is_null(11)) it.parent = s.int64(11);
  it.created = s.text(12);
  return it;
}

std::string id_list(const std::vector<int64_t>& ids) {
  std::string s;
  for (int64_t id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s;
}

}  // namespace

MemoryParams memory_params(const Config& c) {
  MemoryParams p;
  p.policy = policy_from(c.str("memory.policy"));
  p.n = static_cast<int>(c.integer("memory.n"));
  p.lambda = c.real("memory.lambda");
  p.epsilon = c.real("memory.epsilon");
  p.epsilon_decay = c.real("memory.epsilon_decay");
  p.alpha = c.real("memory.alpha");
  p.blend_w = c.real("memory.blend_w");
  p.sigma_min = c.real("memory.sigma_min");
  p.clip = c.real("memory.clip");
  p.seed = static_cast<uint64_t>(c.integer("memory.seed"));
  p.dedup_threshold = c.real("memory.dedup_threshold");
  p.auto_seed = c.boolean("memory.auto_seed");
  p.by_bound = c.boolean("memory.diagnosis");
  const std::string summarize = c.str("memory.summarize");
  if (summarize != "rules" && summarize != "model")
    throw UsageError("config memory.summarize = " + summarize + " is unknown (use rules or model)");
  p.model_experiences = summarize == "model";
  p.baseline = baseline_from(c.str("memory.baseline"));
  auto range = [](const char* key, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi))
      throw UsageError(fmt::format("config {} = {} is out of range (use {} to {})", key, v, lo, hi));
  };
  range("memory.n", p.n, 0, 1000);
  range("memory.lambda", p.lambda, 1, 1000);
  range("memory.epsilon", p.epsilon, 0, 1);
  range("memory.epsilon_decay", p.epsilon_decay, 0, 1);
  range("memory.alpha", p.alpha, 0, 1);
  range("memory.blend_w", p.blend_w, 0, 1);
  range("memory.sigma_min", p.sigma_min, 1e-9, 1e9);
  range("memory.clip", p.clip, 0, 1e9);
  range("memory.dedup_threshold", p.dedup_threshold, 0, 1.0000001);
  return p;
}

TermVector item_terms(const Item& it) {
  TermCounter c;
  c.add_text(it.title, 2);
  for (const auto& t : it.tags) c.add_text(t, 3);
  c.add_text(it.body);
  c.add_text(it.code);
  c.add_text(it.feedback);
  return c.finish();
}

std::string item_hash(const Item& it) {
  std::string s = kind_name(it.kind) + (it.feasible ? "|feasible" : "|infeasible");
  for (const auto* f : {&it.backend, &it.origin_task, &it.title, &it.body, &it.code})
    s += '\0' + *f;
  return sha256_hex(s);
}

TermVector Memory::query_terms(const MemoryQuery& q) const {
  TermCounter c;
  c.add_text(q.text);
  for (const auto& o : q.op_names) c.add_text(o, 3);
  c.add_text(q.error_category, 3);
  if (!q.bound.empty()) c.add_text("bound_" + q.bound, 3);  // as core/diagnosis.h bound_tag
  return c.finish();
}

Memory::Memory(Workspace& ws, MemoryParams p) : ws_(ws), p_(std::move(p)) {
  ws_.migrate("memory", kSchema);
  // Q per bound state (update_bound): beside the versioned schema, created when missing.
  ws_.db().exec(
      "CREATE TABLE IF NOT EXISTS memory_q_bound("
      " item_id INTEGER NOT NULL REFERENCES memory_items(id) ON DELETE CASCADE,"
      " stage TEXT NOT NULL, bound TEXT NOT NULL, q REAL NOT NULL, visits INTEGER NOT NULL,"
      " updated TEXT NOT NULL, PRIMARY KEY(item_id, stage, bound))");
  if (p_.knowledge_root.empty()) p_.knowledge_root = data_root() / "knowledge";
  reload_index();
  if (!p_.auto_seed || p_.backend.empty()) return;
  const std::string key = "seeded:" + p_.backend;
  auto s = ws_.db().prepare("SELECT 1 FROM memory_meta WHERE key=?");
  s.bind(1, key);
  if (s.step()) return;
  fs::path dir = p_.knowledge_root / p_.backend;
  if (!fs::is_directory(dir)) return;  // an installation without knowledge: nothing to seed
  seed_from_knowledge(dir, p_.backend);
  ws_.db().prepare("INSERT OR REPLACE INTO memory_meta(key, value) VALUES(?, ?)")
      .bind(1, key)
      .bind(2, iso_now())
      .run();
}

size_t Memory::seed_from_knowledge(const fs::path& dir, const std::string& backend) {
  auto docs = load_knowledge(dir, backend);
  size_t changed = 0;
  Db& db = ws_.db();
  db.transaction([&] {
    for (const auto& d : docs) {
      std::string hash = item_hash(d.item);
      auto s = db.prepare("SELECT id, content_hash, tags FROM memory_items WHERE source=?");
      s.bind(1, d.source);
      TermVector terms = item_terms(d.item);
      if (!s.step()) {
        insert(d.item, d.source, hash, terms, 0);
        ++changed;
      } else if (s.text(1) != hash || s.text(2) != json(d.item.tags).dump()) {
        std::string blob = encode_terms(terms);
        db.prepare(
              "UPDATE memory_items SET kind=?, title=?, body=?, tags=?, content_hash=?, terms=?"
              " WHERE id=?")
            .bind(1, kind_name(d.item.kind))
            .bind(2, d.item.title)
            .bind(3, d.item.body)
            .bind(4, json(d.item.tags).dump())
            .bind(5, hash)
            .bind_blob(6, blob.data(), blob.size())
            .bind(7, s.int64(0))
            .run();
        ++changed;
      }
    }
  });
  reload_index();  // terms of updated items changed
  return changed;
}

int64_t Memory::insert(const Item& it, const std::string& source, const std::string& hash,
                       const TermVector& terms, int64_t merged) {
  std::string blob = encode_terms(terms);
  auto s = ws_.db().prepare(
      "INSERT INTO memory_items(kind, backend, origin_task, title, body, code, feedback, tags,"
      " latency_ms, feasible, parent, created, source, content_hash, merged, terms)"
      " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, kind_name(it.kind))
      .bind(2, it.backend)
      .bind(3, it.origin_task)
      .bind(4, it.title)
      .bind(5, it.body)
      .bind(6, it.code)
      .bind(7, it.feedback)
      .bind(8, json(it.tags).dump())
      .bind(9, it.latency_ms)
      .bind(10, int64_t{it.feasible})
      .bind(11, it.parent)
      .bind(12, it.created.empty() ? iso_now() : it.created)
      .bind(13, source.empty() ? std::optional<std::string>() : std::optional<std::string>(source))
      .bind(14, hash)
      .bind(15, merged)
      .bind_blob(16, blob.data(), blob.size())
      .run();
  return ws_.db().last_insert_id();
}

std::optional<int64_t> Memory::merge_target(const Item& it, const std::string& hash,
                                            const TermVector& terms) {
  auto s = ws_.db().prepare("SELECT id FROM memory_items WHERE content_hash=? ORDER BY id LIMIT 1");
  s.bind(1, hash);
  if (s.step()) return s.int64(0);
  if (frozen_) return std::nullopt;
  // A feasible trace is a start point with its own latency: only identical code merges it.
  if (it.kind == ItemKind::Trace && it.feasible) return std::nullopt;
  for (const auto& h : index_.group_top(terms, it.kind, it.backend, it.origin_task, 8)) {
    if (h.similarity < p_.dedup_threshold) break;
    auto other = find(h.id);
    if (other && other->feasible == it.feasible && other->tags == it.tags) return h.id;
  }
  return std::nullopt;
}

int64_t Memory::add(const Item& item) {
  sync_index();
  TermVector terms = item_terms(item);
  std::string hash = item_hash(item);
  int64_t id = 0;
  if (frozen_) return merge_target(item, hash, terms).value_or(0);
  ws_.db().transaction([&] {
    if (auto target = merge_target(item, hash, terms)) {
      ws_.db().prepare("UPDATE memory_items SET merged = merged + 1 WHERE id=?").bind(1, *target).run();
      id = *target;
      return;
    }
    id = insert(item, "", hash, terms, 0);
  });
  sync_index();
  return id;
}

std::optional<Item> Memory::find(int64_t id) {
  auto s = ws_.db().prepare(std::string("SELECT ") + kItemCols + " FROM memory_items WHERE id=?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_item(s);
}

Item Memory::get(int64_t id) {
  auto it = find(id);
  if (!it) throw UsageError(fmt::format("no memory item {} (see `evokernel memory list`)", id));
  return *it;
}

size_t Memory::size() {
  auto s = ws_.db().prepare("SELECT count(*) FROM memory_items");
  s.step();
  return static_cast<size_t>(s.int64(0));
}

std::vector<Item> Memory::load_items(const std::vector<int64_t>& ids) {
  std::unordered_map<int64_t, Item> by_id;
  if (!ids.empty()) {
    auto s = ws_.db().prepare(std::string("SELECT ") + kItemCols +
                              " FROM memory_items WHERE id IN (" + id_list(ids) + ")");
    while (s.step()) {
      Item it = read_item(s);
      by_id.emplace(it.id, std::move(it));
    }
  }
  std::vector<Item> out;
  for (int64_t id : ids)
    if (auto f = by_id.find(id); f != by_id.end()) out.push_back(f->second);
  return out;
}

void Memory::reload_index() {
  index_.clear();
  sync_index();
}

void Memory::sync_index() {
  auto s = ws_.db().prepare(
      "SELECT id, kind, backend, origin_task, terms FROM memory_items WHERE id > ? ORDER BY id");
  s.bind(1, index_.max_id());
  while (s.step()) {
    std::string blob = s.text(4);
    index_.add(s.int64(0), kind_from(s.text(1)), s.text(2), s.text(3),
               decode_terms(blob.data(), blob.size()));
  }
}

SimilarityIndex& Memory::index() {
  sync_index();
  return index_;
}

std::vector<Item> Memory::api_items(const MemoryQuery& q) {
  std::vector<Item> guides, by_op;
  std::set<int64_t> seen;
  auto s = ws_.db().prepare(std::string("SELECT ") + kItemCols +
                            " FROM memory_items WHERE kind='api' AND backend=? ORDER BY id");
  s.bind(1, q.backend);
  std::vector<Item> apis;
  while (s.step()) apis.push_back(read_item(s));
  for (const auto& it : apis)
    if (std::count(it.tags.begin(), it.tags.end(), "guide") && seen.insert(it.id).second)
      guides.push_back(it);
  for (const auto& op : q.op_names)
    for (const auto& it : apis)
      if (std::count(it.tags.begin(), it.tags.end(), op) && seen.insert(it.id).second)
        by_op.push_back(it);
  guides.insert(guides.end(), by_op.begin(), by_op.end());
  return guides;
}

std::vector<SimilarityIndex::Hit> Memory::recall(const MemoryQuery& q, size_t k) {
  sync_index();
  SimilarityIndex::Filter f{q.backend, q.kinds, q.exclude_origin_task};
  if (f.kinds.empty())
    f.kinds = {ItemKind::Experience, ItemKind::Trace, ItemKind::BestPractice};
  return index_.top(query_terms(q), f, k);
}

std::vector<Retrieved> Memory::retrieve(const MemoryQuery& q, Stage stage, uint64_t rng_seed,
                                        std::optional<Policy> policy,
                                        std::optional<double> epsilon) {
  const Policy pol = policy.value_or(p_.policy);
  if (pol == Policy::None || p_.n <= 0) return {};
  size_t n = static_cast<size_t>(p_.n);
  size_t k = std::max(n, static_cast<size_t>(std::llround(p_.lambda * p_.n)));
  auto hits = recall(q, k);
  std::vector<PoolEntry> pool;
  std::unordered_map<int64_t, QEntry> qs;
  if (!hits.empty()) {
    std::vector<int64_t> ids;
    for (const auto& h : hits) ids.push_back(h.id);
    auto s = ws_.db().prepare("SELECT item_id, q, visits FROM memory_q WHERE stage=? AND item_id IN (" +
                              id_list(ids) + ")");
    s.bind(1, stage_name(stage));
    while (s.step()) qs[s.int64(0)] = QEntry{s.real(1), static_cast<int>(s.int64(2)), ""};
    if (!q.bound.empty()) {  // the bound state's Q where it has visited the item
      auto b = ws_.db().prepare(
          "SELECT item_id, q, visits FROM memory_q_bound WHERE stage=? AND "
          "bound=? AND visits > 0 AND item_id IN (" +
          id_list(ids) + ")");
      b.bind(1, stage_name(stage)).bind(2, q.bound);
      while (b.step()) qs[b.int64(0)] = QEntry{b.real(1), static_cast<int>(b.int64(2)), ""};
    }
  }
  for (const auto& h : hits) pool.push_back({h.id, h.similarity, qs[h.id].q});
  // Mix the run's seed with the caller's so that equal calls draw equally.
  std::seed_seq seq{static_cast<uint32_t>(p_.seed), static_cast<uint32_t>(p_.seed >> 32),
                    static_cast<uint32_t>(rng_seed), static_cast<uint32_t>(rng_seed >> 32)};
  std::mt19937_64 rng(seq);
  auto chosen = choose(pool, pol, n, epsilon.value_or(p_.epsilon), p_.blend_w, rng);
  std::vector<int64_t> ids;
  for (size_t i : chosen) ids.push_back(pool[i].id);
  auto items = load_items(ids);
  if (items.size() != ids.size()) {  // pruned by another process since the index was loaded
    reload_index();
    return retrieve(q, stage, rng_seed, policy, epsilon);
  }
  std::vector<Retrieved> out;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const auto& e = pool[chosen[i]];
    out.push_back({items[i], e.similarity, e.q, qs[e.id].visits});
  }
  return out;
}

void Memory::update(const std::vector<int64_t>& ids, Stage stage, double credit,
                    const std::string& attempt_key) {
  if (frozen_) return;
  std::set<int64_t> distinct(ids.begin(), ids.end());
  const std::string now = iso_now();
  const std::string st = stage_name(stage);
  ws_.db().transaction([&] {
    auto get = ws_.db().prepare("SELECT q, visits FROM memory_q WHERE item_id=? AND stage=?");
    auto put = ws_.db().prepare(
        "INSERT INTO memory_q(item_id, stage, q, visits, updated) VALUES(?,?,?,?,?)"
        " ON CONFLICT(item_id, stage) DO UPDATE SET q=excluded.q, visits=excluded.visits,"
        " updated=excluded.updated");
    auto log = ws_.db().prepare(
        "INSERT INTO memory_q_updates(attempt_key, item_id, stage, credit, q_before, q_after,"
        " created) VALUES(?,?,?,?,?,?,?)");
    for (int64_t id : distinct) {
      get.bind(1, id).bind(2, st);
      const bool held = get.step();
      const double before = held ? get.real(0) : 0.0;  // Q starts at 0
      const int64_t visits = held ? get.int64(1) : 0;
      get.reset();
      const double after = q_update(before, p_.alpha, credit);
      put.bind(1, id).bind(2, st).bind(3, after).bind(4, visits + 1).bind(5, now).run();
      put.reset();
      log.bind(1, attempt_key)
          .bind(2, id)
          .bind(3, st)
          .bind(4, credit)
          .bind(5, before)
          .bind(6, after)
          .bind(7, now)
          .run();
      log.reset();
    }
  });
}

void Memory::update_bound(const std::vector<int64_t>& ids, Stage stage, const std::string& bound,
                          double credit) {
  if (frozen_ || bound.empty()) return;
  std::set<int64_t> distinct(ids.begin(), ids.end());
  const std::string now = iso_now();
  const std::string st = stage_name(stage);
  ws_.db().transaction([&] {
    for (int64_t id : distinct) {
      QEntry e = q_entry_bound(id, stage, bound);  // Q starts at 0
      auto put = ws_.db().prepare(
          "INSERT INTO memory_q_bound(item_id, stage, bound, q, visits, updated)"
          " VALUES(?,?,?,?,?,?) ON CONFLICT(item_id, stage, bound) DO UPDATE SET q=excluded.q,"
          " visits=excluded.visits, updated=excluded.updated");
      put.bind(1, id).bind(2, st).bind(3, bound).bind(4, q_update(e.q, p_.alpha, credit));
      put.bind(5, static_cast<int64_t>(e.visits + 1)).bind(6, now).run();
    }
  });
}

QEntry Memory::q_entry_bound(int64_t id, Stage stage, const std::string& bound) {
  auto s = ws_.db().prepare(
      "SELECT q, visits, updated FROM memory_q_bound WHERE item_id=? AND stage=? AND bound=?");
  s.bind(1, id).bind(2, stage_name(stage)).bind(3, bound);
  if (!s.step()) return {};
  return {s.real(0), static_cast<int>(s.int64(1)), s.text(2)};
}

QEntry Memory::q_entry(int64_t id, Stage stage) {
  auto s = ws_.db().prepare("SELECT q, visits, updated FROM memory_q WHERE item_id=? AND stage=?");
  s.bind(1, id).bind(2, stage_name(stage));
  if (!s.step()) return {};
  return {s.real(0), static_cast<int>(s.int64(1)), s.text(2)};
}

double Memory::q(int64_t id, Stage stage) { return q_entry(id, stage).q; }

BaselineKind baseline_from(const std::string& name) {
  if (name == "none") return BaselineKind::None;
  if (name == "task") return BaselineKind::Task;
  throw UsageError("config memory.baseline = " + name + " is unknown (use none or task)");
}

const char* baseline_name(BaselineKind b) { return b == BaselineKind::Task ? "task" : "none"; }

double Memory::credit(const std::string& task, Stage stage, double reward) {
  if (p_.baseline == BaselineKind::None) return reward;
  auto read = [&](const std::string& t) -> std::pair<int64_t, double> {
    auto s = ws_.db().prepare("SELECT n, mean FROM memory_baseline WHERE task=? AND stage=?");
    s.bind(1, t).bind(2, stage_name(stage));
    if (!s.step()) return {0, 0.0};
    return {s.int64(0), s.real(1)};
  };
  double out = reward;
  ws_.db().transaction([&] {
    auto [n, mean] = read(task);
    auto [gn, gmean] = read("");
    out = reward - (n > 0 ? mean : gmean);
    if (frozen_) return;
    auto put = ws_.db().prepare(
        "INSERT OR REPLACE INTO memory_baseline(task, stage, n, mean) VALUES(?, ?, ?, ?)");
    put.bind(1, task).bind(2, stage_name(stage)).bind(3, n + 1)
        .bind(4, mean + (reward - mean) / static_cast<double>(n + 1)).run();
    put.reset();
    put.bind(1, std::string()).bind(2, stage_name(stage)).bind(3, gn + 1)
        .bind(4, gmean + (reward - gmean) / static_cast<double>(gn + 1)).run();
  });
  return out;
}

RunningStats Memory::normaliser() {
  auto s = ws_.db().prepare("SELECT n, mean, m2 FROM memory_normaliser WHERE stage='refine'");
  RunningStats r;
  if (s.step()) r = {s.int64(0), s.real(1), s.real(2)};
  return r;
}

double Memory::normalise_refine_reward(double raw) {
  if (frozen_) return normalise_reward(raw, normaliser(), p_.sigma_min, p_.clip);
  double out = 0;
  ws_.db().transaction([&] {
    RunningStats r = normaliser();  // read inside the transaction: another writer may have moved it
    out = normalise_reward(raw, r, p_.sigma_min, p_.clip);
    r.push(raw);
    ws_.db()
        .prepare("INSERT OR REPLACE INTO memory_normaliser(stage, n, mean, m2) VALUES('refine',?,?,?)")
        .bind(1, r.n)
        .bind(2, r.mean)
        .bind(3, r.m2)
        .run();
  });
  return out;
}

void Memory::record_provenance(const std::string& attempt_key, const std::vector<int64_t>& ids,
                               Stage stage, double reward) {
  std::string now = iso_now();
  ws_.db().transaction([&] {
    auto s = ws_.db().prepare(
        "INSERT OR REPLACE INTO memory_provenance(attempt_key, item_id, stage, reward, created)"
        " SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM memory_items WHERE id=?2)");
    for (int64_t id : ids) {
      s.bind(1, attempt_key).bind(2, id).bind(3, stage_name(stage)).bind(4, reward).bind(5, now);
      s.run();
      s.reset();
    }
  });
}

void Memory::export_jsonl(const fs::path& file) {
  std::string out;
  RunningStats r = normaliser();
  out += json{{"format", "evokernel-memory"},
              {"version", 1},
              {"normaliser", {{"refine", {{"n", r.n}, {"mean", r.mean}, {"m2", r.m2}}}}}}
             .dump() +
         "\n";
  std::unordered_map<int64_t, json> qs;
  auto qsel = ws_.db().prepare("SELECT item_id, stage, q, visits, updated FROM memory_q");
  while (qsel.step())
    qs[qsel.int64(0)][qsel.text(1)] = {{"q", qsel.real(2)}, {"visits", qsel.int64(3)}, {"updated", qsel.text(4)}};
  auto s = ws_.db().prepare(std::string("SELECT ") + kItemCols +
                            ", source, merged FROM memory_items ORDER BY id");
  while (s.step()) {
    Item it = read_item(s);
    json line = {{"item", to_json(it)}, {"merged", s.int64(14)}};
    line["source"] = s.is_null(13) ? json() : json(s.text(13));
    auto f = qs.find(it.id);
    line["q"] = f == qs.end() ? json::object() : f->second;
    out += line.dump() + "\n";
  }
  write_file_atomic(file, out);
}

size_t Memory::import_jsonl(const fs::path& file, const std::set<std::string>& exclude_tasks) {
  if (frozen_) throw UsageError("memory is frozen: drop --freeze-memory to import");
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file.string() + ": check that the file exists");
  std::vector<std::pair<size_t, json>> lines;  // (line number, value)
  size_t lineno = 0;
  for (std::string l; std::getline(in, l);) {
    ++lineno;
    if (l.empty()) continue;
    try {
      lines.emplace_back(lineno, parse_json(l));
    } catch (const json::exception& e) {
      throw UsageError(fmt::format("{} line {}: not JSON ({})", file.string(), lineno, e.what()));
    }
  }
  // A line of the wrong shape names itself; the transaction leaves the bank as it was.
  auto bad_line = [&](size_t n, const char* what) {
    return UsageError(
        fmt::format("{} line {}: not a memory export line ({}): export one with "
                    "`evokernel memory export`",
                    file.string(), n, what));
  };
  size_t added = 0;
  std::unordered_map<int64_t, int64_t> new_id;
  Db& db = ws_.db();
  size_t at = 0;  // the line being imported
  auto import_lines = [&] {
    for (const auto& [n, l] : lines) {
      at = n;
      if (!l.is_object()) throw json::type_error::create(302, "not an object", &l);
      if (!l.contains("item")) {  // header: adopt the normaliser if this bank has none
        if (l.contains("normaliser") && normaliser().n == 0 && l["normaliser"].contains("refine")) {
          const auto& r = l["normaliser"]["refine"];
          db.prepare(
                "INSERT OR REPLACE INTO memory_normaliser(stage, n, mean, m2) "
                "VALUES('refine',?,?,?)")
              .bind(1, json_int(r, "n", int64_t{0}))
              .bind(2, r.value("mean", 0.0))
              .bind(3, r.value("m2", 0.0))
              .run();
        }
        continue;
      }
      Item it = item_from_json(l["item"]);
      int64_t old = it.id;
      if (it.kind != ItemKind::Api && exclude_tasks.count(it.origin_task)) continue;
      if (it.parent) {
        auto p = new_id.find(*it.parent);
        it.parent = p == new_id.end() ? std::nullopt : std::optional<int64_t>(p->second);
      }
      std::string source = l.contains("source") && l["source"].is_string() ? l["source"].get<std::string>() : "";
      std::string hash = item_hash(it);
      auto s = source.empty()
                   ? db.prepare("SELECT id FROM memory_items WHERE content_hash=? ORDER BY id LIMIT 1")
                   : db.prepare("SELECT id FROM memory_items WHERE source=? OR content_hash=? ORDER BY id LIMIT 1");
      if (source.empty()) {
        s.bind(1, hash);
      } else {
        s.bind(1, source).bind(2, hash);
      }
      int64_t id;
      if (s.step()) {
        id = s.int64(0);
      } else {
        id = insert(it, source, hash, item_terms(it), json_int(l, "merged", int64_t{0}));
        ++added;
      }
      new_id[old] = id;
      const json qs = l.value("q", json::object());  // items() must not outlive its json
      for (const auto& [stage, e] : qs.items()) {
        stage_from(stage);  // validates
        db.prepare(
              "INSERT INTO memory_q(item_id, stage, q, visits, updated) VALUES(?,?,?,?,?)"
              " ON CONFLICT(item_id, stage) DO UPDATE SET q=excluded.q, visits=excluded.visits,"
              " updated=excluded.updated WHERE memory_q.visits = 0")
            .bind(1, id)
            .bind(2, stage)
            .bind(3, e.value("q", 0.0))
            .bind(4, json_int(e, "visits", int64_t{0}))
            .bind(5, e.value("updated", iso_now()))
            .run();
      }
    }
  };
  try {
    db.transaction(import_lines);
  } catch (const json::exception& e) {
    throw bad_line(at, e.what());
  } catch (const UsageError& e) {
    throw bad_line(at, e.what());
  }
  sync_index();
  return added;
}

MemoryStats Memory::stats() {
  MemoryStats st;
  Db& db = ws_.db();
  auto s = db.prepare("SELECT kind, count(*), sum(merged) FROM memory_items GROUP BY kind");
  while (s.step()) {
    st.items_by_kind[s.text(0)] = s.int64(1);
    st.items += s.int64(1);
    st.merged += s.int64(2);
  }
  auto q = db.prepare("SELECT stage, count(*), avg(q) FROM memory_q WHERE visits > 0 GROUP BY stage");
  while (q.step()) {
    st.visited[q.text(0)] = q.int64(1);
    st.mean_q[q.text(0)] = q.real(2);
  }
  auto p = db.prepare("SELECT count(*), count(DISTINCT attempt_key) FROM memory_provenance");
  p.step();
  st.provenance_rows = p.int64(0);
  st.attempts = p.int64(1);
  st.refine_normaliser = normaliser();
  return st;
}

std::vector<Item> Memory::list(std::optional<ItemKind> kind, size_t limit) {
  std::string sql = std::string("SELECT ") + kItemCols + " FROM memory_items" +
                    (kind ? " WHERE kind=?" : "") + " ORDER BY id" +
                    (limit ? " LIMIT " + std::to_string(limit) : "");
  auto s = ws_.db().prepare(sql);
  if (kind) s.bind(1, kind_name(*kind));
  return s.rows(read_item);
}

std::vector<std::pair<Item, QEntry>> Memory::top(Stage stage, size_t n) {
  auto s = ws_.db().prepare(
      "SELECT item_id, q, visits, updated FROM memory_q WHERE stage=? AND visits > 0"
      " ORDER BY q DESC, visits DESC, item_id LIMIT ?");
  s.bind(1, stage_name(stage)).bind(2, static_cast<int64_t>(n));
  std::vector<std::pair<int64_t, QEntry>> rows;
  while (s.step()) rows.push_back({s.int64(0), {s.real(1), static_cast<int>(s.int64(2)), s.text(3)}});
  std::vector<std::pair<Item, QEntry>> out;
  for (const auto& [id, e] : rows) out.push_back({get(id), e});
  return out;
}

size_t Memory::prune(const PruneOptions& o) {
  if (frozen_) throw UsageError("memory is frozen: drop --freeze-memory to prune");
  const char* doomed =
      "SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY backend, origin_task"
      " ORDER BY id DESC) AS rn FROM memory_items WHERE kind='trace') WHERE rn > ?"
      " AND id NOT IN (SELECT parent FROM memory_items WHERE parent IS NOT NULL)"
      " AND id NOT IN (SELECT item_id FROM memory_q WHERE q > 0)";
  size_t n = 0;
  ws_.db().transaction([&] {
    auto s = ws_.db().prepare(doomed);
    s.bind(1, static_cast<int64_t>(std::max(o.keep_traces_per_task, 0)));
    std::vector<int64_t> ids;
    while (s.step()) ids.push_back(s.int64(0));
    n = ids.size();
    if (!o.dry_run && !ids.empty())
      ws_.db().exec("DELETE FROM memory_items WHERE id IN (" + id_list(ids) + ")");
  });
  if (!o.dry_run) reload_index();
  return n;
}

}  // namespace evk
