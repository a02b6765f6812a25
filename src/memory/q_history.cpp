#include "memory/q_history.h"

namespace evk {
namespace {

bool has_table(Db& db, const char* name) {
  auto s = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
  s.bind(1, name);
  return s.step();
}

}  // namespace

bool has_memory(Db& db) {
  return has_table(db, "memory_items") && has_table(db, "memory_q") &&
         has_table(db, "memory_provenance");
}

std::map<std::string, int64_t> items_by_kind(Db& db) {
  std::map<std::string, int64_t> out;
  if (!has_memory(db)) return out;
  auto s = db.prepare("SELECT kind, count(*) FROM memory_items GROUP BY kind ORDER BY kind");
  while (s.step()) out[s.text(0)] = s.int64(1);
  return out;
}

bool has_q_update_log(Db& db) {
  return has_table(db, "memory_q_updates");
}

std::vector<QUpdate> q_updates(Db& db) {
  std::vector<QUpdate> out;
  if (!has_q_update_log(db)) return out;
  auto s = db.prepare(
      "SELECT attempt_key, item_id, stage, credit, q_before, q_after FROM memory_q_updates"
      " ORDER BY seq");
  while (s.step())
    out.push_back({s.text(0), s.int64(1), stage_from(s.text(2)), s.real(3), s.real(4), s.real(5)});
  return out;
}

std::vector<ContextRecord> context_records(Db& db) {
  std::vector<ContextRecord> out;
  if (!has_memory(db)) return out;
  auto s = db.prepare("SELECT attempt_key, item_id, stage, reward FROM memory_provenance");
  while (s.step()) out.push_back({s.text(0), s.int64(1), stage_from(s.text(2)), s.real(3)});
  return out;
}

std::vector<StoredQ> top_q(Db& db, Stage stage, size_t n) {
  std::vector<StoredQ> out;
  if (!has_memory(db)) return out;
  auto s = db.prepare(
      "SELECT m.id, m.kind, m.title, m.origin_task, q.q, q.visits FROM memory_q q"
      " JOIN memory_items m ON m.id = q.item_id WHERE q.stage=? AND q.visits > 0"
      " ORDER BY q.q DESC, q.visits DESC, m.id LIMIT ?");
  s.bind(1, stage_name(stage)).bind(2, static_cast<int64_t>(n));
  while (s.step())
    out.push_back(
        {s.int64(0), s.text(1), s.text(2), s.text(3), s.real(4), static_cast<int>(s.int64(5))});
  return out;
}

}  // namespace evk
