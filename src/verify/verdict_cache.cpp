#include "verify/verdict_cache.h"

#include "core/workspace.h"

namespace evk {

void migrate_verify_schema(Workspace& ws) {
  static const std::vector<std::string> steps = {
      "CREATE TABLE verify_cache (key TEXT PRIMARY KEY, verdict TEXT NOT NULL, "
      "created_at REAL NOT NULL DEFAULT (julianday('now')))",
      "CREATE TABLE verify_peaks (threads INTEGER PRIMARY KEY, peaks TEXT NOT NULL, "
      "measured_at REAL NOT NULL DEFAULT (julianday('now')))",
  };
  ws.migrate("verify", steps);
}

std::optional<Verdict> cached_verdict(Workspace& ws, const std::string& key) {
  auto s = ws.db().prepare("SELECT verdict FROM verify_cache WHERE key = ?");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  auto j = nlohmann::json::parse(s.text(0), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  Verdict v = verdict_from_json(j);
  if (is_infra(v.category)) return std::nullopt;  // never stored: a record this build cannot read
  v.cached = true;
  return v;
}

void store_verdict(Workspace& ws, const std::string& key, const Verdict& v) {
  auto s = ws.db().prepare("INSERT OR REPLACE INTO verify_cache (key, verdict) VALUES (?, ?)");
  s.bind(1, key).bind(2, to_json(v).dump()).run();
}

}  // namespace evk
