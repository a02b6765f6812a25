// Db::transaction on a real SQLite file: a throw rolls back everything inside, a nested
// transaction is a savepoint whose failure undoes only itself when the outer one catches it.
#include "core/sqlite.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/temp_dir.h"

namespace evk {
namespace {

int64_t rows(Db& db) {
  Stmt s = db.prepare("SELECT count(*) FROM t");
  s.step();
  return s.int64(0);
}

TEST(Sqlite, ThrowInsideATransactionLeavesNothing) {
  TempDir dir("evk-sqlite-");
  Db db((dir.path() / "a.db").string());
  db.exec("CREATE TABLE t(x INTEGER)");
  EXPECT_THROW(db.transaction([&] {
    db.exec("INSERT INTO t VALUES (1)");
    throw std::runtime_error("crash mid-write");
  }),
               std::runtime_error);
  EXPECT_EQ(rows(db), 0);
  db.transaction([&] { db.exec("INSERT INTO t VALUES (1)"); });
  EXPECT_EQ(rows(db), 1);
}

TEST(Sqlite, AFailedSavepointUndoesOnlyItself) {
  TempDir dir("evk-sqlite-");
  Db db((dir.path() / "a.db").string());
  db.exec("CREATE TABLE t(x INTEGER)");
  db.transaction([&] {
    db.exec("INSERT INTO t VALUES (1)");
    try {
      db.transaction([&] {
        db.exec("INSERT INTO t VALUES (2)");
        throw std::runtime_error("inner");
      });
    } catch (const std::runtime_error&) {
    }
    db.exec("INSERT INTO t VALUES (3)");
  });
  Stmt s = db.prepare("SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x)");
  s.step();
  EXPECT_EQ(s.text(0), "1,3");
}

TEST(Sqlite, ASecondConnectionSeesOnlyCommittedWork) {
  TempDir dir("evk-sqlite-");
  std::string path = (dir.path() / "a.db").string();
  Db a(path), b(path);
  a.exec("CREATE TABLE t(x INTEGER)");
  EXPECT_THROW(a.transaction([&] {
    a.exec("INSERT INTO t VALUES (1)");
    EXPECT_EQ(rows(b), 0);  // WAL: the reader sees the last commit, not the open transaction
    throw std::runtime_error("abort");
  }),
               std::runtime_error);
  EXPECT_EQ(rows(b), 0);
}

}  // namespace
}  // namespace evk
