// A thin RAII layer over SQLite's C API; statements belong to their Db. A Db is not
// synchronised: threads that share one serialise their calls (Agent::writer_, Verifier::db_mu_).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace evk {

class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt(Stmt&& o) noexcept : db_(o.db_), s_(o.s_) { o.s_ = nullptr; }

  // Binds are 1-based like SQLite's. Each returns *this so calls chain.
  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, double v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind_blob(int i, const void* data, size_t n);
  Stmt& bind_null(int i);
  template <class T>
  Stmt& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }

  bool step();  // true while a row is available
  // Steps through every remaining row, each read by `read(*this)`, in order.
  template <class Read>
  auto rows(Read read) -> std::vector<decltype(read(*this))> {
    std::vector<decltype(read(*this))> out;
    while (step()) out.push_back(read(*this));
    return out;
  }
  void run();   // step to completion, for statements with no rows
  void reset();

  int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  bool is_null(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

class Db {
 public:
  // Opens (creating if needed) with WAL journaling, foreign keys on, and a busy timeout so
  // that two processes on one workspace wait for each other instead of failing.
  explicit Db(const std::string& path);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(std::string_view sql);
  Stmt prepare(std::string_view sql) { return Stmt(db_, sql); }
  int64_t last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
  int changes() const { return sqlite3_changes(db_); }
  const std::string& path() const { return path_; }
  sqlite3* raw() { return db_; }

  // Runs fn inside BEGIN IMMEDIATE ... COMMIT (a SAVEPOINT when already inside a transaction);
  // rolls back and rethrows on exception.
  void transaction(const std::function<void()>& fn);

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace evk
