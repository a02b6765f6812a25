#include "core/sqlite.h"

#include "core/error.h"

namespace evk {

static void check(sqlite3* db, int rc, std::string_view what) {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
    throw Error(std::string(what) + ": " + sqlite3_errmsg(db));
}

Stmt::Stmt(sqlite3* db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s_, nullptr);
  check(db, rc, "sqlite prepare [" + std::string(sql.substr(0, 80)) + "]");
}

Stmt::~Stmt() {
  if (s_) sqlite3_finalize(s_);
}

Stmt& Stmt::bind(int i, int64_t v) {
  check(db_, sqlite3_bind_int64(s_, i, v), "sqlite bind");
  return *this;
}
Stmt& Stmt::bind(int i, double v) {
  check(db_, sqlite3_bind_double(s_, i, v), "sqlite bind");
  return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
  check(db_, sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT),
        "sqlite bind");
  return *this;
}
Stmt& Stmt::bind_blob(int i, const void* data, size_t n) {
  check(db_, sqlite3_bind_blob(s_, i, data, static_cast<int>(n), SQLITE_TRANSIENT), "sqlite bind");
  return *this;
}
Stmt& Stmt::bind_null(int i) {
  check(db_, sqlite3_bind_null(s_, i), "sqlite bind");
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(s_);
  check(db_, rc, "sqlite step");
  return rc == SQLITE_ROW;
}

void Stmt::run() {
  while (step()) {
  }
}

void Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

int64_t Stmt::int64(int col) const { return sqlite3_column_int64(s_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(s_, col); }
bool Stmt::is_null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
std::string Stmt::text(int col) const {
  const void* p = sqlite3_column_blob(s_, col);
  int n = sqlite3_column_bytes(s_, col);
  return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

Db::Db(const std::string& path) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    if (db_) sqlite3_close(db_);
    throw Error("cannot open database " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db_, 30000);
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  exec("PRAGMA foreign_keys=ON");
}

Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

void Db::exec(std::string_view sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw Error("sqlite: " + msg + " [" + std::string(sql.substr(0, 80)) + "]");
  }
}

void Db::transaction(const std::function<void()>& fn) {
  // Nested calls become savepoints, so a caller can make several modules' writes one atomic
  // unit (the agent commits an attempt and all its memory effects together).
  if (!sqlite3_get_autocommit(db_)) {
    exec("SAVEPOINT evk_nested");
    try {
      fn();
      exec("RELEASE evk_nested");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK TO evk_nested; RELEASE evk_nested", nullptr, nullptr, nullptr);
      throw;
    }
    return;
  }
  exec("BEGIN IMMEDIATE");
  try {
    fn();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace evk
