#include <gtest/gtest.h>

#include "fixture.h"
#include "report/memory_view.h"
#include "report/run_data.h"

namespace evk {
namespace {

using testing::BuiltRun;
using testing::TempDir;

TEST(ReplayQ, IsTheExponentialMovingAverageOfRewards) {
  auto q = replay_q(0, {1, -1, 1}, 0.5);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_DOUBLE_EQ(q[0], 0.5);
  EXPECT_DOUBLE_EQ(q[1], -0.25);
  EXPECT_DOUBLE_EQ(q[2], 0.375);
  EXPECT_DOUBLE_EQ(replay_q(0.2, {0.2, 0.2}, 0.3).back(), 0.2);  // a fixed point stays
}

const MemoryItemView* find(const StageMemoryView& s, int64_t id) {
  for (const auto& it : s.top)
    if (it.id == id) return &it;
  return nullptr;
}

TEST(MemoryView, TrajectoriesReplayTheRunAndEndAtTheStoredQ) {
  TempDir tmp;
  Workspace ws(tmp.path() / "ws");
  BuiltRun b = testing::build_run(ws);
  RunStore store(ws);
  RunData r = load_run(store, b.id);
  const MemoryView& mv = r.memory;
  ASSERT_TRUE(mv.present);
  EXPECT_TRUE(mv.learned) << mv.note;
  EXPECT_DOUBLE_EQ(mv.alpha, 0.5);  // from the run's stored config, not the default 0.2
  EXPECT_EQ(mv.attempts, 13);
  EXPECT_EQ(mv.items_by_kind.at("experience"), 1);
  ASSERT_EQ(mv.stages.size(), 2u);
  const StageMemoryView& draft = mv.stages[0];
  const StageMemoryView& refine = mv.stages[1];
  EXPECT_EQ(draft.stage, Stage::Draft);
  EXPECT_EQ(refine.stage, Stage::Refine);
  EXPECT_EQ(draft.attempts, 8);   // draft attempts with a non-empty context
  EXPECT_EQ(refine.attempts, 4);

  // Refining: item_simd had the rewards 0.9, -1, 1.5, 0.3 from Q = 0.
  const MemoryItemView* simd = find(refine, b.item_simd);
  ASSERT_NE(simd, nullptr);
  EXPECT_EQ(simd->updates, 4);
  EXPECT_EQ(simd->visits, 4);
  EXPECT_DOUBLE_EQ(simd->q0, 0);
  ASSERT_EQ(simd->trajectory.size(), 5u);
  EXPECT_DOUBLE_EQ(simd->trajectory[1].second, 0.45);
  EXPECT_DOUBLE_EQ(simd->trajectory[2].second, -0.275);
  EXPECT_EQ(simd->trajectory[1].first, 3);  // relu#3 is the 3rd attempt of the run
  EXPECT_EQ(simd->trajectory[4].first, 9);  // matmul_square#4 is the 9th
  Workspace run_ws(store.run_dir(b.id));
  MemoryParams p;
  p.alpha = 0.5;
  p.auto_seed = false;
  Memory mem(run_ws, p);
  EXPECT_NEAR(simd->trajectory.back().second, mem.q(b.item_simd, Stage::Refine), 1e-12);
  EXPECT_NEAR(simd->mean_reward, (0.9 - 1 + 1.5 + 0.3) / 4, 1e-12);

  // Drafting: item_guard arrived with one imported update; its starting Q is recovered.
  const MemoryItemView* guard = find(draft, b.item_guard);
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(guard->visits, 7);
  EXPECT_EQ(guard->updates, 6);
  EXPECT_NEAR(guard->q0, b.q_guard_before, 1e-9);
  EXPECT_NEAR(guard->trajectory.back().second, mem.q(b.item_guard, Stage::Draft), 1e-12);
  // Sorted by stored Q, highest first.
  for (size_t i = 1; i < draft.top.size(); ++i) EXPECT_GE(draft.top[i - 1].q, draft.top[i].q);
}

TEST(MemoryView, AFrozenRunShowsNoTrajectories) {
  TempDir tmp;
  Workspace ws(tmp.path() / "ws");
  BuiltRun b = testing::build_run(ws);
  RunStore store(ws);
  RunData r = load_run(store, b.id);
  Workspace run_ws(store.run_dir(b.id));
  MemoryView mv = load_memory_view(run_ws.db(), r.attempts, 0.5, /*frozen=*/true, 5);
  EXPECT_FALSE(mv.learned);
  EXPECT_NE(mv.note.find("frozen"), std::string::npos);
  for (const auto& s : mv.stages)
    for (const auto& it : s.top) EXPECT_TRUE(it.trajectory.empty());
}

TEST(MemoryView, ARunWithoutMemoryTablesHasNothingToShowAndIsNotWritten) {
  TempDir tmp;
  Workspace ws(tmp.path() / "ws");
  RunStore store(ws);
  RunInfo info;
  info.method = "passk";
  info.model = "sim";
  info.suite = "s";
  info.backend = "cpu";
  info.budget = 1;
  int64_t id = store.create(info);
  RunData r = load_run(store, id);
  EXPECT_FALSE(r.memory.present);
  EXPECT_FALSE(r.memory.note.empty());
  Workspace run_ws(store.run_dir(id));
  auto s = run_ws.db().prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 'memory%'");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(0), 0);
}

}  // namespace
}  // namespace evk
