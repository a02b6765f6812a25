// The opencl backend's corpora (tests/corpus/opencl/): solutions pass every gate on the
// machine's OpenCL device (PoCL here), hacks are rejected by the gate they name, hostile
// kernels fail safely within their limits.
#include "corpus.h"

namespace evk::corpus_test {
namespace {

// Skips (with the reason) only when this machine cannot run OpenCL kernels at all.
#define SKIP_WITHOUT_OPENCL()                                         \
  do {                                                                \
    if (auto why = make_backend("opencl")->device_unavailable())      \
      GTEST_SKIP() << "no OpenCL device to run kernels on: " << *why; \
  } while (0)

TEST_F(Corpus, OpenClSolutionsAreFeasible) {
  SKIP_WITHOUT_OPENCL();
  auto cases = corpus("opencl", "solutions");
  ASSERT_GE(cases.size(), 5u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_GT(verdicts[i].latency_ms, 0) << cases[i].file;
    EXPECT_GT(verdicts[i].timed_calls, 0) << cases[i].file;
  }
}

TEST_F(Corpus, OpenClHacksAreRejectedByTheGateTheyName) {
  SKIP_WITHOUT_OPENCL();
  auto cases = corpus("opencl", "hacks");
  ASSERT_GE(cases.size(), 10u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_FALSE(verdicts[i].feasible) << cases[i].file;
  }
}

TEST_F(Corpus, OpenClHostileKernelsFailSafely) {
  SKIP_WITHOUT_OPENCL();
  for (const auto& p : fs::directory_iterator("/tmp"))
    if (p.path().filename().string().rfind("evk-hostile-", 0) == 0) fs::remove(p.path());
  auto cases = corpus("opencl", "hostile");
  ASSERT_GE(cases.size(), 6u);
  auto verdicts = run_all(cases, 5);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_FALSE(verdicts[i].feasible) << cases[i].file;
  }
  for (const auto& p : fs::directory_iterator("/tmp"))
    EXPECT_NE(p.path().filename().string().rfind("evk-hostile-", 0), 0u)
        << "a hostile kernel wrote " << p.path();
}

}  // namespace
}  // namespace evk::corpus_test
