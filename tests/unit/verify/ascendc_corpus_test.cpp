// The ascendc backend's corpora (tests/corpus/ascendc/): solutions pass every gate on the
// emulated AI Core with a modeled latency, hacks are rejected by the gate they name (or timed as
// the work they really charge), the
// mistakes a model makes in its first Ascend C kernels end with their named emulator
// category, and hostile kernels fail safely within their limits.
#include "corpus.h"

namespace evk::corpus_test {
namespace {

#define SKIP_WITHOUT_RUNNER()                                     \
  do {                                                            \
    if (auto why = make_backend("ascendc")->device_unavailable()) \
      GTEST_SKIP() << "no emulated AI Core: " << *why;            \
  } while (0)

TEST_F(Corpus, AscendcSolutionsAreFeasibleWithAModeledLatency) {
  SKIP_WITHOUT_RUNNER();
  auto cases = corpus("ascendc", "solutions");
  ASSERT_GE(cases.size(), 5u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    const Verdict& v = verdicts[i];
    EXPECT_GT(v.latency_ms, 0) << cases[i].file;
    EXPECT_EQ(v.latency_iqr_ms, 0) << "a modeled latency has no spread: " << cases[i].file;
    ASSERT_TRUE(v.metrics.contains("modeled")) << cases[i].file;
    EXPECT_GT(v.metrics["modeled"].value("cycles", 0.0), 0) << cases[i].file;
    EXPECT_GT(v.eager_ms, 0) << "the eager baseline is modeled too: " << cases[i].file;
  }
}

TEST_F(Corpus, AscendcHacksAreRejectedByTheGateTheyName) {
  SKIP_WITHOUT_RUNNER();
  auto cases = corpus("ascendc", "hacks");
  ASSERT_GE(cases.size(), 8u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    // A hack that does all its work through the API is feasible, timed as the work the replay
    // charges (its `latency-like` is checked by Corpus/CorpusCase); every other one is refused.
    if (cases[i].header.at("expect") != "feasible") {
      EXPECT_FALSE(verdicts[i].feasible) << cases[i].file;
    }
  }
}

TEST_F(Corpus, AscendcMistakesEndWithTheirNamedCategory) {
  SKIP_WITHOUT_RUNNER();
  auto cases = corpus("ascendc", "mistakes");
  ASSERT_GE(cases.size(), 6u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_FALSE(verdicts[i].feasible) << cases[i].file;
  }
}

TEST_F(Corpus, AscendcHostileKernelsFailSafely) {
  SKIP_WITHOUT_RUNNER();
  auto cases = corpus("ascendc", "hostile");
  ASSERT_GE(cases.size(), 4u);
  auto verdicts = run_all(cases, 5);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_FALSE(verdicts[i].feasible) << cases[i].file;
  }
}

}  // namespace
}  // namespace evk::corpus_test
