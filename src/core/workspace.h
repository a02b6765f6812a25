// The workspace: one folder (default ./.evokernel) holding the SQLite database and a cache.
// Every module that persists state keeps its tables here, created by forward-only migrations
// registered under the module's own component name.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/sqlite.h"

namespace evk {

class Workspace {
 public:
  // --workspace flag, else $EVK_WORKSPACE, else ./.evokernel.
  static std::filesystem::path resolve(const std::string& flag);

  // Creates the folder, cache/ and the database if missing.
  explicit Workspace(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path cache_dir() const { return root_ / "cache"; }
  std::filesystem::path db_path() const { return root_ / "evokernel.db"; }
  Db& db() { return db_; }

  // Applies steps[v..] where v is the component's recorded version, each step in its own
  // transaction together with the version bump. Steps are never edited once released, only
  // appended. Safe when two processes migrate at once (BEGIN IMMEDIATE serialises them).
  void migrate(const std::string& component, const std::vector<std::string>& steps);
  int schema_version(const std::string& component);

 private:
  std::filesystem::path root_;
  Db db_;
};

}  // namespace evk
