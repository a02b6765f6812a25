#include "core/workspace.h"

#include <cstdlib>

#include "core/error.h"

namespace evk {
namespace fs = std::filesystem;

fs::path Workspace::resolve(const std::string& flag) {
  if (!flag.empty()) return fs::absolute(flag);
  if (const char* e = std::getenv("EVK_WORKSPACE"); e && *e) return fs::absolute(e);
  return fs::absolute(".evokernel");
}

static fs::path prepare(const fs::path& root) {
  std::error_code ec;
  fs::create_directories(root / "cache", ec);
  if (ec)
    throw UsageError("cannot create workspace " + root.string() + ": " + ec.message() +
                     " (choose another with --workspace DIR)");
  return root;
}

Workspace::Workspace(fs::path root)
    : root_(prepare(root)), db_((root_ / "evokernel.db").string()) {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS schema_version("
      " component TEXT PRIMARY KEY, version INTEGER NOT NULL)");
}

int Workspace::schema_version(const std::string& component) {
  auto s = db_.prepare("SELECT version FROM schema_version WHERE component=?");
  s.bind(1, component);
  return s.step() ? static_cast<int>(s.int64(0)) : 0;
}

void Workspace::migrate(const std::string& component, const std::vector<std::string>& steps) {
  for (size_t v = 0; v < steps.size(); ++v) {
    db_.transaction([&] {
      // Re-read inside the transaction: another process may have migrated meanwhile.
      if (static_cast<size_t>(schema_version(component)) > v) return;
      db_.exec(steps[v]);
      auto s = db_.prepare(
          "INSERT INTO schema_version(component, version) VALUES(?, ?)"
          " ON CONFLICT(component) DO UPDATE SET version=excluded.version");
      s.bind(1, component).bind(2, static_cast<int64_t>(v + 1)).run();
    });
  }
  if (static_cast<size_t>(schema_version(component)) > steps.size())
    throw Error("workspace " + root_.string() + " has a newer '" + component +
                "' schema than this evokernel knows: upgrade evokernel");
}

}  // namespace evk
