#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "memory/policy.h"
#include "memory/reward.h"

namespace evk {
namespace {

std::vector<PoolEntry> pool_of(const std::vector<double>& sims, const std::vector<double>& qs) {
  std::vector<PoolEntry> p;
  for (size_t i = 0; i < sims.size(); ++i) p.push_back({int64_t(i + 1), sims[i], qs[i]});
  return p;
}

TEST(Choose, EpsilonZeroPicksTheTopQTiesBySimilarity) {
  auto pool = pool_of({0.9, 0.8, 0.7, 0.6, 0.5}, {0.1, 0.5, -0.2, 0.5, 0.9});
  std::mt19937_64 rng(1);
  auto c = choose(pool, Policy::Value, 3, 0.0, 0.5, rng);
  // Q 0.9 (index 4), then the tie at 0.5 broken by similarity: index 1 before 3.
  EXPECT_EQ(c, (std::vector<size_t>{4, 1, 3}));
}

TEST(Choose, EpsilonOnePicksUniformlyFromThePool) {
  const size_t K = 10, N = 3, draws = 20000;
  std::vector<double> sims, qs;
  for (size_t i = 0; i < K; ++i) sims.push_back(1.0 - 0.05 * double(i)), qs.push_back(i == 0 ? 5 : 0);
  auto pool = pool_of(sims, qs);
  std::mt19937_64 rng(42);
  std::vector<int> count(K, 0);
  for (size_t d = 0; d < draws; ++d) {
    auto c = choose(pool, Policy::Value, N, 1.0, 0.5, rng);
    ASSERT_EQ(c.size(), N);
    std::set<size_t> distinct(c.begin(), c.end());
    ASSERT_EQ(distinct.size(), N);  // without replacement
    for (size_t i : c) ++count[i];
  }
  double expected = double(draws * N) / K;  // 6000; binomial sd about 65
  for (size_t i = 0; i < K; ++i) EXPECT_NEAR(count[i], expected, 0.05 * expected) << "item " << i;
}

TEST(Choose, SimilarityTakesThePoolHeadAndNoneTakesNothing) {
  auto pool = pool_of({0.9, 0.8, 0.7}, {-1, 0, 1});
  std::mt19937_64 rng(1);
  EXPECT_EQ(choose(pool, Policy::Similarity, 2, 0.5, 0.5, rng), (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(choose(pool, Policy::None, 2, 0.5, 0.5, rng).empty());
  EXPECT_EQ(choose(pool, Policy::Similarity, 10, 0.5, 0.5, rng).size(), 3u);
}

TEST(ZScores, AreWithinTheVectorAndZeroWhenConstant) {
  auto z = zscores({1, 2, 3});
  EXPECT_NEAR(z[0], -std::sqrt(1.5), 1e-12);
  EXPECT_NEAR(z[1], 0, 1e-12);
  EXPECT_NEAR(z[2], std::sqrt(1.5), 1e-12);
  for (double v : zscores({4, 4, 4})) EXPECT_EQ(v, 0);
}

TEST(Choose, BlendRanksByWeightedZScoresWithinThePool) {
  // Similarity and Q disagree; the weight decides. Scale of Q must not matter (z-scores).
  auto pool = pool_of({0.9, 0.5, 0.1}, {-100, 0, 100});
  std::mt19937_64 rng(1);
  EXPECT_EQ(choose(pool, Policy::Blend, 1, 0, 0.0, rng), (std::vector<size_t>{0}));
  EXPECT_EQ(choose(pool, Policy::Blend, 1, 0, 1.0, rng), (std::vector<size_t>{2}));
  // w = 0.25: score_i = 0.75 z(sim) + 0.25 z(q) -> item 0 still leads.
  auto zs = zscores({0.9, 0.5, 0.1}), zq = zscores({-100, 0, 100});
  std::vector<double> expect;
  for (int i = 0; i < 3; ++i) expect.push_back(0.75 * zs[i] + 0.25 * zq[i]);
  EXPECT_GT(expect[0], expect[1]);
  EXPECT_EQ(choose(pool, Policy::Blend, 3, 0, 0.25, rng), (std::vector<size_t>{0, 1, 2}));
  // A Q outlier inside the pool: 0.6 z(q) outweighs 0.4 z(sim).
  auto pool2 = pool_of({0.9, 0.8, 0.7, 0.6}, {0, 0, 0, 1});
  EXPECT_EQ(choose(pool2, Policy::Blend, 1, 0, 0.6, rng), (std::vector<size_t>{3}));
}

TEST(Rewards, DraftAndRefine) {
  EXPECT_EQ(draft_reward(true), 1.0);
  EXPECT_EQ(draft_reward(false), -1.0);
  EXPECT_EQ(refine_reward(false, 1.0, 0.5), -1.0);
  EXPECT_NEAR(refine_reward(true, 2.0, 1.0), std::tanh(std::log(2.0)), 1e-12);
  EXPECT_NEAR(refine_reward(true, 1.0, 1.0), 0.0, 1e-12);
  EXPECT_LT(refine_reward(true, 1.0, 2.0), 0.0);
  EXPECT_GT(refine_reward(true, 1.0, 0.0), 0.99);  // non-positive latency floored, not NaN
}

TEST(Normaliser, FloorsSigmaAndClips) {
  RunningStats s;
  for (int i = 0; i < 10; ++i) s.push(0.2);  // constant: std 0 -> floor 0.1
  EXPECT_NEAR(s.mean, 0.2, 1e-12);
  EXPECT_NEAR(s.stddev(), 0.0, 1e-12);
  EXPECT_NEAR(normalise_reward(0.25, s, 0.1, 3), 0.5, 1e-9);
  EXPECT_EQ(normalise_reward(0.9, s, 0.1, 3), 3.0);
  EXPECT_EQ(normalise_reward(-0.9, s, 0.1, 3), -3.0);
  RunningStats w;
  for (double x : {1.0, 2.0, 3.0, 4.0}) w.push(x);
  EXPECT_NEAR(w.mean, 2.5, 1e-12);
  EXPECT_NEAR(w.stddev(), std::sqrt(1.25), 1e-12);
  EXPECT_NEAR(normalise_reward(4.0, w, 0.1, 3), 1.5 / std::sqrt(1.25), 1e-12);
}

}  // namespace
}  // namespace evk
