// Confirmation before credit (verify/confirm.h) with real kernels in real jailed runners: an
// equal pair is not confirmed faster, a truly faster kernel (one pass over the data against
// 22) is, and the rule on the round ratios is the sign test it says.
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

TEST_F(ConfirmTest, AnEqualPairIsNotConfirmedFaster) {
  const TaskInfo& t = task("builtin:level1/relu");
  Confirmation c = verifier_->confirm(t, kRelu, kRelu, options());
  std::printf(
      "equal pair: ratio %.3f (quartiles %.3f-%.3f), candidate faster in %d of %d rounds; %s\n",
      c.ratio, c.ratio_q1, c.ratio_q3, c.wins, c.rounds, c.note.c_str());
  ASSERT_TRUE(c.ran) << c.note;
  EXPECT_FALSE(c.faster);
  EXPECT_EQ(c.rounds, ConfirmOptions{}.rounds);
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
