// run/run_store.h: a run's status is an enum inside and its name in the database; a name this
// build does not write reads as interrupted (resumable), never as done.
#include <gtest/gtest.h>

#include "core/temp_dir.h"
#include "core/workspace.h"
#include "run/run_store.h"

namespace evk {
namespace {

TEST(RunStatus, EachStatusIsStoredByNameAndReadBack) {
  TempDir dir("evk-run-status");
  Workspace ws(dir.path());
  RunStore store(ws);
  RunInfo info;
  info.method = "evokernel";
  info.model = "sim";
  info.suite = "builtin:level1";
  info.backend = "cpu";
  const int64_t id = store.create(info);
  EXPECT_EQ(store.get(id).status, RunStatus::Running);
  for (RunStatus st :
       {RunStatus::Done, RunStatus::Stopped, RunStatus::Interrupted, RunStatus::Running}) {
    store.set_status(id, st);
    EXPECT_EQ(store.get(id).status, st) << run_status_name(st);
    auto s = ws.db().prepare("SELECT status FROM runs WHERE id = ?");
    s.bind(1, id);
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.text(0), run_status_name(st));
  }
  ws.db().prepare("UPDATE runs SET status = 'paused-by-a-newer-build'").run();
  EXPECT_EQ(store.get(id).status, RunStatus::Interrupted);
}

}  // namespace
}  // namespace evk
