// Confirmation before credit (verify/confirm.h). The rule is tested on synthetic round ratios
// (judge_rounds): an equal pair's chance of being confirmed is exactly the sign test's tail.
// End to end, with real kernels in real jailed runners, only outcomes noise cannot reach: a
// kernel doing 22 passes over the data against one, both ways, and a wrong kernel. Timing two
// equal kernels and asserting they are not confirmed would fail by chance (3.8% at best).
#include "verify/confirm.h"

#include <gtest/gtest.h>

#include "corpus.h"

namespace evk {
namespace {

const char* kRelu = R"(#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
  return 0;
}
)";

// The same result in 22 passes over the output (copy, ten times scale up and down, clamp):
// several times slower, whatever the per-call overhead.
const char* kSlowRelu = R"(#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t n = evk_numel(&in[0]);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i];
  for (int r = 0; r < 10; ++r) {
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] * 2.0f;
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] * 0.5f;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = y[i] < 0.0f ? 0.0f : y[i];
  return 0;
}
)";

TEST(ConfirmRule, SignTestAndMinimumGain) {
  ConfirmOptions o;
  std::vector<double> equal(16, 1.0), noisy_gain, real_gain;
  for (int i = 0; i < 16; ++i) {
    noisy_gain.push_back(i % 2 ? 1.2 : 0.9);  // 8 wins of 16
    real_gain.push_back(i < 13 ? 1.3 : 0.95);
  }
  EXPECT_FALSE(judge_rounds(equal, o).faster);
  EXPECT_FALSE(judge_rounds(noisy_gain, o).faster);
  Confirmation c = judge_rounds(real_gain, o);
  EXPECT_TRUE(c.faster);
  EXPECT_EQ(c.wins, 13);
  EXPECT_DOUBLE_EQ(c.ratio, 1.3);
  EXPECT_FALSE(judge_rounds({}, o).ran);
}

// Both conditions, at their edges: 12 wins with a median gain just under 2% is not enough, nor
// is a large gain with 11 wins; fewer rounds than min_wins need every round won.
TEST(ConfirmRule, EachConditionAtItsEdge) {
  ConfirmOptions o;
  auto rounds = [](int wins, double win_ratio, double lose_ratio) {
    std::vector<double> r(16, lose_ratio);
    for (int i = 0; i < wins; ++i) r[static_cast<size_t>(i) * 16 / wins] = win_ratio;
    return r;
  };
  EXPECT_TRUE(judge_rounds(rounds(12, 1.021, 0.99), o).faster);
  EXPECT_FALSE(judge_rounds(rounds(12, 1.019, 0.99), o).faster) << "gain under 2%";
  EXPECT_FALSE(judge_rounds(rounds(11, 3.0, 0.999), o).faster) << "11 wins of 16";
  EXPECT_FALSE(judge_rounds(std::vector<double>(16, 1.0), o).faster) << "a tie is no win";
  EXPECT_TRUE(judge_rounds({1.5, 1.5, 1.5}, o).faster) << "3 rounds: all 3 won";
  EXPECT_FALSE(judge_rounds({1.5, 1.5, 0.99}, o).faster) << "3 rounds: 2 won";
}

// An equal pair: every round is a coin flip. Over all 2^16 equally likely win/lose patterns
// (a won round 5% faster, a lost one 5% slower), the rule confirms exactly the patterns with at
// least 12 wins: sum C(16, k) for k = 12..16 = 2517 of 65536, 3.84%, the chance false
// positive that confirm.h states (more where rounds are not independent, as on a loaded
// machine: why no test times an equal pair and asserts the answer).
TEST(ConfirmRule, AnEqualPairIsConfirmedExactlyAsOftenAsTheSignTestSays) {
  ConfirmOptions o;
  int confirmed = 0;
  for (uint32_t pattern = 0; pattern < (1u << 16); ++pattern) {
    std::vector<double> r;
    for (int i = 0; i < 16; ++i) r.push_back(pattern >> i & 1 ? 1.05 : 1 / 1.05);
    confirmed += judge_rounds(r, o).faster;
  }
  EXPECT_EQ(confirmed, 2517);
}

class ConfirmTest : public corpus_test::Corpus {
 protected:
  static VerifyOptions options() {
    VerifyOptions o;
    o.backend = "cpu";
    o.use_cache = false;
    o.run_timeout_s = 30;
    return o;
  }
};

// The plumbing with an equal pair: every round is timed and judged. Whether it is confirmed
// is chance (see AnEqualPairIsConfirmedExactlyAsOftenAsTheSignTestSays): printed, not asserted.
TEST_F(ConfirmTest, AnEqualPairIsTimedEveryRound) {
  const TaskInfo& t = task("builtin:level1/relu");
  Confirmation c = verifier_->confirm(t, kRelu, kRelu, options());
  std::printf(
      "equal pair: ratio %.3f (quartiles %.3f-%.3f), candidate faster in %d of %d rounds; %s\n",
      c.ratio, c.ratio_q1, c.ratio_q3, c.wins, c.rounds, c.note.c_str());
  ASSERT_TRUE(c.ran) << c.note;
  EXPECT_EQ(c.rounds, ConfirmOptions{}.rounds);
  EXPECT_GT(c.best_ms, 0);
  EXPECT_GT(c.candidate_ms, 0);
}

TEST_F(ConfirmTest, ATrulyFasterKernelIsConfirmedAndASlowerOneIsNot) {
  const TaskInfo& t = task("builtin:level1/relu");
  Confirmation c = verifier_->confirm(t, kSlowRelu, kRelu, options());
  std::printf(
      "one pass against 22: ratio %.3f (quartiles %.3f-%.3f), faster in %d of %d "
      "rounds, %.4f ms against %.4f ms\n",
      c.ratio, c.ratio_q1, c.ratio_q3, c.wins, c.rounds, c.candidate_ms, c.best_ms);
  ASSERT_TRUE(c.ran) << c.note;
  EXPECT_TRUE(c.faster);
  EXPECT_GT(c.ratio, 2.0);
  Confirmation back = verifier_->confirm(t, kRelu, kSlowRelu, options());
  ASSERT_TRUE(back.ran) << back.note;
  EXPECT_FALSE(back.faster);
  EXPECT_LT(back.ratio, 1.0);
}

TEST_F(ConfirmTest, AWrongKernelIsNeverConfirmed) {
  const TaskInfo& t = task("builtin:level1/relu");
  std::string wrong = kRelu;
  wrong.replace(wrong.find("0.0f : x[i]"), 11, "0.0f : 2 * x[i]");
  Confirmation c = verifier_->confirm(t, kRelu, wrong, options());
  EXPECT_FALSE(c.ran);
  EXPECT_FALSE(c.faster);
  EXPECT_NE(c.note.find("wrong outputs"), std::string::npos) << c.note;
}

}  // namespace
}  // namespace evk
