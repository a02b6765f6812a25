// Crash safety: a process adding items is killed with SIGKILL mid-stream; the database must
// reopen clean with every item whole.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "helpers.h"

namespace evk {
namespace {

std::string body_for(int i) {  // distinct words per item, so no two are near-duplicates
  std::string s;
  for (int k = 0; k < 50; ++k) s += "line w" + std::to_string(i * 31 + k) + " of item v" + std::to_string(i) + "\n";
  return s;
}

int64_t count_items(const std::filesystem::path& root) {
  Db db((root / "evokernel.db").string());
  try {
    auto s = db.prepare("SELECT count(*) FROM memory_items");
    s.step();
    return s.int64(0);
  } catch (const std::exception&) {
    return 0;  // tables not created yet
  }
}

TEST(CrashSafety, KilledWriterLeavesNoHalfWrittenItem) {
  testing::TempDir d;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      Workspace ws(d.path());
      Memory m(ws, testing::test_params());
      for (int i = 0; i < 1000000; ++i) {
        Item it = testing::trace_item("task" + std::to_string(i % 7), "item " + std::to_string(i), body_for(i));
        it.body = body_for(i);
        int64_t id = m.add(it);
        m.update({id}, Stage::Draft, 1.0);
      }
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count_items(d.path()) < 40 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped before it was killed";

  Workspace ws(d.path());
  auto ic = ws.db().prepare("PRAGMA integrity_check");
  ASSERT_TRUE(ic.step());
  EXPECT_EQ(ic.text(0), "ok");
  Memory m(ws, testing::test_params());
  auto items = m.list(std::nullopt);
  ASSERT_GE(items.size(), 40u);
  for (const auto& it : items) {
    int i = std::stoi(it.title.substr(5));
    EXPECT_EQ(it.body, body_for(i)) << it.title;
    EXPECT_EQ(it.code, body_for(i)) << it.title;
    EXPECT_EQ(it.origin_task, "task" + std::to_string(i % 7));
    auto s = ws.db().prepare("SELECT content_hash, length(terms) FROM memory_items WHERE id=?");
    s.bind(1, it.id);
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.text(0), item_hash(it));
    EXPECT_GT(s.int64(1), 0);
  }
  // Items are written in order, each in its own transaction: the ids form a prefix 0..n-1.
  for (size_t k = 0; k < items.size(); ++k) EXPECT_EQ(items[k].title, "item " + std::to_string(k));
  // And the bank goes on working.
  int64_t id = m.add(testing::trace_item("after", "after the crash", "fresh words here"));
  EXPECT_GT(id, items.back().id);
  MemoryQuery q;
  q.text = "after the crash fresh words";
  auto r = m.retrieve(q, Stage::Draft, 0, Policy::Similarity);
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].item.id, id);
}

}  // namespace
}  // namespace evk
