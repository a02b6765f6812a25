#include "memory/memory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "core/error.h"
#include "core/paths.h"
#include "helpers.h"
#include "memory/q_history.h"
#include "memory/reward.h"

namespace evk {
namespace {

using testing::TempDir;
using testing::test_params;
using testing::trace_item;

TEST(Memory, AddGetRoundTripsEveryField) {
  TempDir d;
  Workspace ws(d.path());
  Memory m(ws, test_params());
  Item it = trace_item("relu", "relu: failed (compile)", "int evk_forward() { return 0 }");
  it.feedback = "error: expected ';'";
  it.latency_ms = 1.5;
  it.tags = {"relu", "compile"};
  int64_t id = m.add(it);
  Item back = m.get(id);
  EXPECT_EQ(back.id, id);
  EXPECT_EQ(back.kind, ItemKind::Trace);
  EXPECT_EQ(back.origin_task, "relu");
  EXPECT_EQ(back.title, it.title);
  EXPECT_EQ(back.code, it.code);
  EXPECT_EQ(back.feedback, it.feedback);
  EXPECT_EQ(back.tags, it.tags);
  EXPECT_EQ(back.latency_ms, 1.5);
  EXPECT_FALSE(back.parent.has_value());
  EXPECT_FALSE(back.created.empty());
  EXPECT_THROW(m.get(id + 100), UsageError);
  Item child = it;
  child.code = "something else entirely: a new attempt";
  child.parent = id;
  EXPECT_EQ(m.get(m.add(child)).parent, id);
}

TEST(Memory, IdenticalAndNearDuplicateItemsAreMerged) {
  TempDir d;
  Workspace ws(d.path());
  Memory m(ws, test_params());
  std::string code;
  for (int i = 0; i < 60; ++i) code += "y[i" + std::to_string(i) + "] = relu_value(x[i], alpha_" + std::to_string(i) + ");\n";
  int64_t a = m.add(trace_item("relu", "relu: failed (mismatch)", code));
  EXPECT_EQ(m.add(trace_item("relu", "relu: failed (mismatch)", code)), a);  // identical
  // One changed line out of sixty: a near-duplicate.
  EXPECT_EQ(m.add(trace_item("relu", "relu: failed (mismatch)", code + "y[0] = 0;\n")), a);
  // Same text but another task, or another outcome: kept apart.
  EXPECT_NE(m.add(trace_item("gelu", "relu: failed (mismatch)", code)), a);
  EXPECT_NE(m.add(trace_item("relu", "relu: failed (mismatch)", code, true)), a);
  // Different code: kept.
  EXPECT_NE(m.add(trace_item("relu", "relu: failed (mismatch)", "for (;;) sigmoid_tanh_exp();")), a);
  EXPECT_EQ(m.size(), 4u);
  EXPECT_EQ(m.stats().merged, 2);
}

TEST(Memory, SeedingIsIdempotentAndKeepsQWhenAFileChanges) {
  TempDir d, k;
  std::filesystem::copy(testing::test_knowledge() / "cpu", k.path() / "cpu");
  Workspace ws(d.path());
  MemoryParams p = test_params();
  p.auto_seed = true;
  p.backend = "cpu";
  p.knowledge_root = k.path();
  int64_t guide_id = 0;
  {
    Memory m(ws, p);  // a new workspace seeds itself
    EXPECT_EQ(m.size(), 4u);
    auto items = m.list(ItemKind::Api);
    ASSERT_EQ(items.size(), 2u);
    guide_id = items[0].id;
    EXPECT_EQ(m.seed_from_knowledge(k.path() / "cpu", "cpu"), 0u);  // reloading changes nothing
    m.update({guide_id}, Stage::Draft, 1.0);
  }
  Memory again(ws, p);  // reopening does not seed twice
  EXPECT_EQ(again.size(), 4u);
  std::string text = evk::read_file(k.path() / "cpu" / "guide.md") + "\nAlso: use restrict.\n";
  evk::write_file_atomic(k.path() / "cpu" / "guide.md", text);
  EXPECT_EQ(again.seed_from_knowledge(k.path() / "cpu", "cpu"), 1u);
  EXPECT_EQ(again.size(), 4u);
  Item g = again.get(guide_id);
  EXPECT_NE(g.body.find("use restrict"), std::string::npos);
  EXPECT_NEAR(again.q(guide_id, Stage::Draft), 0.2, 1e-12);
}

TEST(Memory, ApiItemsAreTheGuideThenExactOpNames) {
  TempDir d;
  Workspace ws(d.path());
  Memory m(ws, test_params());
  m.seed_from_knowledge(testing::test_knowledge() / "cpu", "cpu");
  MemoryQuery q;
  q.op_names = {"relu"};
  auto api = m.api_items(q);
  ASSERT_EQ(api.size(), 2u);
  EXPECT_EQ(api[0].title, "CPU backend guide");
  EXPECT_EQ(api[1].title, "ReLU template");
  q.op_names = {"rel"};  // exact names only
  EXPECT_EQ(m.api_items(q).size(), 1u);
  q.backend = "cuda";
  EXPECT_TRUE(m.api_items(q).empty());
  // Retrieval never returns api items unless asked for.
  q.backend = "cpu";
  q.text = "relu template evk_forward guide";
  for (const auto& r : m.retrieve(q, Stage::Draft, 1)) EXPECT_NE(r.item.kind, ItemKind::Api);
}

TEST(Memory, UpdateTracksTheMeanRewardWithConstantAlpha) {
  TempDir d;
  Workspace ws(d.path());
  MemoryParams p = test_params();
  p.alpha = 0.05;
  Memory m(ws, p);
  int64_t id = m.add(trace_item("relu", "t", "code a"));
  int64_t other = m.add(trace_item("relu", "u", "different words entirely"));
  // Exact recurrence for the first steps.
  m.update({id}, Stage::Draft, 1.0);
  EXPECT_NEAR(m.q(id, Stage::Draft), 0.05, 1e-12);
  m.update({id, id}, Stage::Draft, -1.0);  // a repeated id counts once
  EXPECT_NEAR(m.q(id, Stage::Draft), 0.05 + 0.05 * (-1 - 0.05), 1e-12);
  EXPECT_EQ(m.q_entry(id, Stage::Draft).visits, 2);
  EXPECT_EQ(m.q(id, Stage::Refine), 0.0);  // stages are separate
  EXPECT_EQ(m.q(other, Stage::Draft), 0.0);
  // Bernoulli(0.8) rewards of +-1: mean 0.6. An EMA with alpha 0.05 over 600 steps, averaged
  // over the last 300, lands near it.
  std::mt19937 rng(3);
  std::bernoulli_distribution ok(0.8);
  double sum = 0;
  for (int i = 0; i < 600; ++i) {
    m.update({other}, Stage::Refine, ok(rng) ? 1.0 : -1.0);
    if (i >= 300) sum += m.q(other, Stage::Refine);
  }
  EXPECT_NEAR(sum / 300, 0.6, 0.08);
  EXPECT_EQ(m.q_entry(other, Stage::Refine).visits, 600);
}

TEST(Memory, QUpdateIsTheExponentialMovingAverageOfCredits) {
  EXPECT_DOUBLE_EQ(q_update(0, 0.5, 1), 0.5);
  EXPECT_DOUBLE_EQ(q_update(0.5, 0.5, -1), -0.25);
  EXPECT_DOUBLE_EQ(q_update(-0.25, 0.5, 1), 0.375);
  EXPECT_DOUBLE_EQ(q_update(0.2, 0.3, 0.2), 0.2);  // a fixed point stays
}

// Each applied step is logged with its attempt, credit and Q before and after, in order; a
// frozen memory logs nothing, as it updates nothing.
TEST(Memory, UpdateLogsEachStepAsApplied) {
  TempDir d;
  Workspace ws(d.path());
  MemoryParams p = test_params();
  p.alpha = 0.5;
  Memory m(ws, p);
  int64_t a = m.add(trace_item("relu", "t", "code a"));
  int64_t b = m.add(trace_item("relu", "u", "different words entirely"));
  m.update({a, b, a}, Stage::Draft, 1.0, "relu#1");
  m.update({a}, Stage::Draft, -0.5, "relu#2");
  m.update({b}, Stage::Refine, 2.0);
  m.set_frozen(true);
  m.update({a}, Stage::Draft, 1.0, "relu#3");
  auto log = q_updates(ws.db());
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0].attempt_key, "relu#1");
  EXPECT_EQ(log[0].item_id, a);
  EXPECT_DOUBLE_EQ(log[0].q_before, 0);
  EXPECT_DOUBLE_EQ(log[0].q_after, 0.5);
  EXPECT_EQ(log[1].item_id, b);
  EXPECT_EQ(log[2].attempt_key, "relu#2");
  EXPECT_DOUBLE_EQ(log[2].credit, -0.5);
  EXPECT_DOUBLE_EQ(log[2].q_before, 0.5);
  EXPECT_DOUBLE_EQ(log[2].q_after, q_update(0.5, 0.5, -0.5));
  EXPECT_DOUBLE_EQ(log[2].q_after, m.q(a, Stage::Draft));
  EXPECT_EQ(log[3].attempt_key, "");
  EXPECT_EQ(log[3].stage, Stage::Refine);
  EXPECT_DOUBLE_EQ(log[3].q_after, m.q(b, Stage::Refine));
}

Memory bank_for_pool(Workspace& ws, MemoryParams p, std::vector<int64_t>& ids) {
  Memory m(ws, p);
  // Six items share the query words with falling overlap; four share nothing.
  const char* words[] = {"alpha beta gamma delta epsilon", "alpha beta gamma delta", "alpha beta gamma",
                         "alpha beta zeta", "alpha eta theta", "alpha iota kappa",
                         "lambda mu", "nu xi", "omicron pi", "rho sigma"};
  for (int i = 0; i < 10; ++i) ids.push_back(m.add(trace_item("t" + std::to_string(i), words[i], words[i])));
  return m;
}

TEST(Memory, EpsilonOneIsUniformOverThePoolAndEpsilonZeroTakesTopQ) {
  TempDir d;
  Workspace ws(d.path());
  MemoryParams p = test_params();
  p.n = 2;
  p.lambda = 3;  // pool K = 6
  std::vector<int64_t> ids;
  Memory m = bank_for_pool(ws, p, ids);
  MemoryQuery q;
  q.text = "alpha beta gamma delta epsilon";
  auto pool = m.recall(q, 6);
  ASSERT_EQ(pool.size(), 6u);
  EXPECT_EQ(pool[0].id, ids[0]);
  std::map<int64_t, int> count;
  const int draws = 3000;
  for (int s = 0; s < draws; ++s)
    for (const auto& r : m.retrieve(q, Stage::Draft, static_cast<uint64_t>(s), Policy::Value, 1.0))
      ++count[r.item.id];
  EXPECT_EQ(count.size(), 6u);  // nothing outside the pool
  for (const auto& h : pool) EXPECT_NEAR(count[h.id], draws * 2 / 6.0, 0.12 * draws * 2 / 6.0);

  // epsilon = 0: the top Q of the pool, whatever the similarity.
  m.update({ids[5]}, Stage::Draft, 1.0);
  m.update({ids[3]}, Stage::Draft, 0.5);
  m.update({ids[0]}, Stage::Draft, -1.0);
  m.update({ids[7]}, Stage::Draft, 1.0);  // outside the pool: never chosen
  auto r = m.retrieve(q, Stage::Draft, 9, Policy::Value, 0.0);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].item.id, ids[5]);
  EXPECT_EQ(r[1].item.id, ids[3]);
  EXPECT_NEAR(r[0].q, 0.2, 1e-12);
  EXPECT_EQ(r[0].visits, 1);
  // Same seed, same answer; the similarity policy ignores Q.
  auto again = m.retrieve(q, Stage::Draft, 9, Policy::Value, 0.0);
  EXPECT_EQ(again[0].item.id, r[0].item.id);
  auto sim = m.retrieve(q, Stage::Draft, 9, Policy::Similarity);
  EXPECT_EQ(sim[0].item.id, ids[0]);
  EXPECT_EQ(sim[1].item.id, ids[1]);
  EXPECT_TRUE(m.retrieve(q, Stage::Draft, 9, Policy::None).empty());
  EXPECT_THROW(policy_from("greedy"), UsageError);
}

TEST(Memory, RefineNormaliserIsPersistedFlooredAndClipped) {
  TempDir d;
  Workspace ws(d.path());
  MemoryParams p = test_params();
  p.sigma_min = 0.1;
  p.clip = 3;
  {
    Memory m(ws, p);
    EXPECT_EQ(m.normalise_refine_reward(0.05), 0.5);  // mu 0, sigma floored at 0.1
    EXPECT_EQ(m.normalise_refine_reward(0.9), 3.0);   // (0.9 - 0.05) / 0.1 clipped
  }
  Memory m(ws, p);  // statistics survive reopening
  RunningStats s = m.normaliser();
  EXPECT_EQ(s.n, 2);
  EXPECT_NEAR(s.mean, 0.475, 1e-12);
  EXPECT_NEAR(m.normalise_refine_reward(0.475), 0.0, 1e-12);
  m.set_frozen(true);
  m.normalise_refine_reward(0.9);
  EXPECT_EQ(m.normaliser().n, 3);  // the 0.475 was counted, the frozen one not
}

TEST(Memory, FrozenMemoryAddsAndLearnsNothing) {
  TempDir d;
  Workspace ws(d.path());
  Memory m(ws, test_params());
  int64_t id = m.add(trace_item("relu", "a", "x"));
  m.set_frozen(true);
  EXPECT_EQ(m.add(trace_item("relu", "b", "y z w")), 0);
  EXPECT_EQ(m.add(trace_item("relu", "a", "x")), id);  // identical: its id, nothing written
  m.update({id}, Stage::Draft, 1.0);
  EXPECT_EQ(m.q(id, Stage::Draft), 0.0);
  EXPECT_EQ(m.size(), 1u);
  m.record_provenance("run1/relu/1", {id, 999}, Stage::Draft, 1.0);  // a log: still written
  EXPECT_EQ(m.stats().provenance_rows, 1);                          // the unknown id skipped
}

TEST(Memory, ExportThenImportIntoAnEmptyWorkspaceGivesTheSameItemsAndQ) {
  TempDir a, b, f;
  Workspace wa(a.path()), wb(b.path());
  Memory src(wa, test_params());
  src.seed_from_knowledge(testing::test_knowledge() / "cpu", "cpu");
  int64_t t1 = src.add(trace_item("relu", "relu try", "relu loop code"));
  Item child = trace_item("relu", "relu try 2", "vectorised relu with simd");
  child.parent = t1;
  int64_t t2 = src.add(child);
  int64_t g1 = src.add(trace_item("gelu", "gelu try", "gelu tanh approximation"));
  Item exp = trace_item("gelu", "gelu lesson", "erf not tanh");
  exp.kind = ItemKind::Experience;
  int64_t e1 = src.add(exp);
  src.update({t1, g1}, Stage::Draft, 1.0);
  src.update({t2}, Stage::Refine, -0.5);
  src.normalise_refine_reward(0.3);
  src.export_jsonl(f.path() / "mem.jsonl");

  Memory dst(wb, test_params());
  EXPECT_EQ(dst.import_jsonl(f.path() / "mem.jsonl", {}), src.size());
  auto xs = src.list(std::nullopt), ys = dst.list(std::nullopt);
  ASSERT_EQ(xs.size(), ys.size());
  std::map<int64_t, int64_t> id_map;
  for (size_t i = 0; i < xs.size(); ++i) {
    id_map[xs[i].id] = ys[i].id;
    EXPECT_EQ(xs[i].title, ys[i].title);
    EXPECT_EQ(xs[i].body, ys[i].body);
    EXPECT_EQ(xs[i].code, ys[i].code);
    EXPECT_EQ(xs[i].tags, ys[i].tags);
    EXPECT_EQ(xs[i].kind, ys[i].kind);
    for (Stage s : {Stage::Draft, Stage::Refine}) {
      EXPECT_EQ(src.q(xs[i].id, s), dst.q(ys[i].id, s));
      EXPECT_EQ(src.q_entry(xs[i].id, s).visits, dst.q_entry(ys[i].id, s).visits);
    }
  }
  EXPECT_EQ(dst.get(id_map[t2]).parent, id_map[t1]);
  EXPECT_EQ(dst.normaliser().n, 1);
  // Importing again adds nothing.
  EXPECT_EQ(dst.import_jsonl(f.path() / "mem.jsonl", {}), 0u);
  // Retrieval works on the imported bank (the index caught up).
  MemoryQuery q;
  q.text = "gelu tanh approximation";
  auto r = dst.retrieve(q, Stage::Draft, 1, Policy::Similarity);
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].item.id, id_map[g1]);

  // --exclude-tasks: the gelu trace and experience stay out, knowledge and relu come in.
  TempDir c;
  Workspace wc(c.path());
  Memory held_out(wc, test_params());
  EXPECT_EQ(held_out.import_jsonl(f.path() / "mem.jsonl", {"gelu"}), src.size() - 2);
  for (const auto& it : held_out.list(std::nullopt)) EXPECT_NE(it.origin_task, "gelu");
  EXPECT_EQ(held_out.list(ItemKind::Api).size(), 2u);
  (void)e1;
}

TEST(Memory, PruneDropsOldUselessTracesOnly) {
  TempDir d;
  Workspace ws(d.path());
  Memory m(ws, test_params());
  std::vector<int64_t> ids;
  for (int i = 0; i < 10; ++i)
    ids.push_back(m.add(trace_item("relu", "try " + std::to_string(i),
                                   "attempt number w" + std::to_string(i) + " distinct body v" + std::to_string(i * 7))));
  Item child = trace_item("relu", "child", "child code q");
  child.parent = ids[1];
  ids.push_back(m.add(child));
  m.update({ids[2]}, Stage::Refine, 1.0);   // positive Q: kept
  m.update({ids[3]}, Stage::Draft, -1.0);   // negative Q: may go
  // Keep the newest 3: of the 8 older ones, ids[1] is a parent and ids[2] helped.
  EXPECT_EQ(m.prune({3, true}), 6u);
  EXPECT_EQ(m.size(), 11u);
  EXPECT_EQ(m.prune({3, false}), 6u);
  EXPECT_EQ(m.size(), 5u);
  EXPECT_TRUE(m.find(ids[1]).has_value());
  EXPECT_TRUE(m.find(ids[2]).has_value());
  EXPECT_FALSE(m.find(ids[3]).has_value());
  MemoryQuery q;
  q.text = "attempt number";
  for (const auto& r : m.retrieve(q, Stage::Draft, 1, Policy::Similarity)) EXPECT_TRUE(m.find(r.item.id));
}

TEST(Memory, ProvenanceRecordsTheContextOfAnAttempt) {
  TempDir d;
  Workspace ws(d.path());
  Memory m(ws, test_params());
  int64_t a = m.add(trace_item("relu", "a", "x one"));
  int64_t b = m.add(trace_item("relu", "b", "y two"));
  m.record_provenance("run/relu/1", {a, b}, Stage::Draft, -1);
  m.record_provenance("run/relu/2", {a}, Stage::Refine, 0.4);
  auto s = m.stats();
  EXPECT_EQ(s.attempts, 2);
  EXPECT_EQ(s.provenance_rows, 3);
  auto row = ws.db().prepare("SELECT reward, stage FROM memory_provenance WHERE attempt_key='run/relu/2'");
  ASSERT_TRUE(row.step());
  EXPECT_DOUBLE_EQ(row.real(0), 0.4);
  EXPECT_EQ(row.text(1), "refine");
}

TEST(MemoryParams, ComeFromConfigAndAreChecked) {
  Config c;
  c.set("memory.n", "4", "flag");
  c.set("memory.epsilon", "0.3", "flag");
  MemoryParams p = memory_params(c);
  EXPECT_EQ(p.n, 4);
  EXPECT_EQ(p.epsilon, 0.3);
  EXPECT_EQ(p.policy, Policy::Value);
  c.set("memory.epsilon", "1.5", "flag");
  EXPECT_THROW(memory_params(c), UsageError);
  c.set("memory.epsilon", "0.1", "flag");
  c.set("memory.policy", "magic", "flag");
  EXPECT_THROW(memory_params(c), UsageError);
}

}  // namespace
}  // namespace evk
