// The point of the paper in one test: when some items in the bank make episodes succeed more
// often, value-driven retrieval learns to put them in the context; similarity retrieval cannot.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "helpers.h"

namespace evk {
namespace {

struct Outcome {
  double helpful_per_context = 0;  // over the last episodes
  double success_rate = 0;
};

Outcome simulate(const std::string& policy, uint64_t seed) {
  testing::TempDir d;
  Workspace ws(d.path());
  MemoryParams p = testing::test_params();
  p.n = 4;
  p.lambda = 5;  // pool of 20
  p.epsilon = 0.1;
  p.alpha = 0.1;
  p.seed = seed;
  Memory m(ws, p);
  // Item i shares 40 - i words with the query, so similarity falls with i, plus words of its own.
  std::string query;
  for (int w = 0; w < 40; ++w) query += "shared" + std::to_string(w) + " ";
  std::vector<int64_t> ids;
  for (int i = 0; i < 40; ++i) {
    std::string text;
    for (int w = 0; w < 40 - i; ++w) text += "shared" + std::to_string(w) + " ";
    for (int u = 0; u < 5; ++u) text += "own" + std::to_string(i) + "x" + std::to_string(u) + " ";
    ids.push_back(m.add(testing::trace_item("task" + std::to_string(i), "item", text)));
  }
  // Helpful items are in the recall pool but not among the four most similar.
  const std::set<int64_t> helpful = {ids[6], ids[9], ids[12], ids[15]};
  MemoryQuery q;
  q.text = query;
  std::mt19937_64 env(seed * 7919 + 1);
  const int episodes = 500, tail = 100;
  int helpful_seen = 0, successes = 0;
  for (int e = 0; e < episodes; ++e) {
    auto ctx = m.retrieve(q, Stage::Draft, static_cast<uint64_t>(e), policy_from(policy));
    std::vector<int64_t> used;
    int k = 0;
    for (const auto& r : ctx) {
      used.push_back(r.item.id);
      k += static_cast<int>(helpful.count(r.item.id));
    }
    bool ok = std::bernoulli_distribution(0.05 + 0.225 * k)(env);  // 5% .. 95%
    m.update(used, Stage::Draft, draft_reward(ok));
    if (e >= episodes - tail) {
      helpful_seen += k;
      successes += ok;
    }
  }
  return {double(helpful_seen) / tail, double(successes) / tail};
}

TEST(Learning, ValuePolicyPutsHelpfulItemsInContextFarMoreThanSimilarity) {
  // A uniformly random context of 4 from the pool of 20 would hold 0.8 helpful items.
  double value_sum = 0;
  for (uint64_t seed : {1u, 2u, 3u}) {
    Outcome value = simulate("value", seed), sim = simulate("similarity", seed);
    EXPECT_EQ(sim.helpful_per_context, 0.0) << "seed " << seed;
    EXPECT_GE(value.helpful_per_context, 1.5) << "seed " << seed;
    EXPECT_GT(value.success_rate, sim.success_rate + 0.3) << "seed " << seed;
    value_sum += value.helpful_per_context;
  }
  EXPECT_GE(value_sum / 3, 2.2);
}

}  // namespace
}  // namespace evk
