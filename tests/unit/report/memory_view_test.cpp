#include "report/memory_view.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/paths.h"
#include "core/process.h"
#include "fixture.h"
#include "memory/q_history.h"
#include "memory/reward.h"
#include "report/run_data.h"

namespace evk {
namespace {

using testing::BuiltRun;
using testing::TempDir;

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

// A sim run through the CLI, as a user runs one, with each memory.baseline: the report's
// trajectories are the memory's Q history. Each step is q_update of the one before with the
// credit the memory learned from, each ends at the stored Q, and with the task baseline a
// replay of the recorded rewards (what the report once did) would not end there.
class MemoryViewOfASimRun : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryViewOfASimRun, TrajectoriesAreTheMemorysQHistory) {
  TempDir tmp;
  ProcessOptions o;
  o.env = {{"EVK_VERIFY_SEEDS", "2"},
           {"EVK_VERIFY_TIMING_BUDGET_MS", "100"},
           {"EVK_ORACLE_TIMING_RUNS", "5"},
           {"EVK_MEMORY_BASELINE", GetParam()}};
  o.timeout_s = 600;
  auto run = run_process({EVK_CLI_PATH, "--workspace", (tmp.path() / "ws").string(), "run",
                          "--suite", (data_root() / "tests/data/agent_suite").string(), "--model",
                          "sim", "--budget", "8", "--seed", "3", "--quiet"},
                         o);
  ASSERT_TRUE(run.ok()) << run.err;
  Workspace ws(tmp.path() / "ws");
  RunStore store(ws);
  RunData r = load_run(store, 1, 1000);
  const MemoryView& mv = r.memory;
  ASSERT_TRUE(mv.learned) << mv.note;
  Workspace run_ws(store.run_dir(1));
  std::map<std::pair<Stage, int64_t>, std::vector<double>> credits, rewards;
  for (const auto& u : q_updates(run_ws.db())) credits[{u.stage, u.item_id}].push_back(u.credit);
  for (const auto& c : context_records(run_ws.db()))
    rewards[{c.stage, c.item_id}].push_back(c.reward);
  MemoryParams p;
  p.auto_seed = false;
  Memory mem(run_ws, p);
  int charted = 0, replay_differs = 0;
  for (const auto& s : mv.stages)
    for (const auto& it : s.top) {
      const auto& cr = credits[{s.stage, it.id}];
      ASSERT_EQ(it.trajectory.size(), cr.size() + 1) << it.title;
      ++charted;
      EXPECT_DOUBLE_EQ(it.trajectory.front().second, 0);  // a fresh memory starts at 0
      for (size_t i = 0; i < cr.size(); ++i)
        EXPECT_DOUBLE_EQ(it.trajectory[i + 1].second,
                         q_update(it.trajectory[i].second, mv.alpha, cr[i]));
      EXPECT_DOUBLE_EQ(it.trajectory.back().second, mem.q(it.id, s.stage)) << it.title;
      double replayed = 0;
      for (double x : rewards[{s.stage, it.id}]) replayed = q_update(replayed, mv.alpha, x);
      replay_differs += std::fabs(replayed - it.q) > 1e-9;
    }
  EXPECT_GT(charted, 0);
  if (GetParam() == "none")
    EXPECT_EQ(replay_differs, 0);
  else
    EXPECT_GT(replay_differs, 0) << "the task baseline credited every item its reward";
}

INSTANTIATE_TEST_SUITE_P(Baselines, MemoryViewOfASimRun, ::testing::Values("none", "task"));

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
