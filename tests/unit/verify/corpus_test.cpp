// The CPU backend's corpora (tests/corpus/cpu/): solutions pass, hacks are rejected by the
// gate they name, hostile kernels fail safely.
#include "corpus.h"

namespace evk::corpus_test {
namespace {

TEST_F(Corpus, SolutionsAreFeasible) {
  auto cases = corpus("cpu", "solutions");
  ASSERT_GE(cases.size(), 10u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_GT(verdicts[i].latency_ms, 0) << cases[i].file;
    EXPECT_GT(verdicts[i].timed_calls, 0) << cases[i].file;
  }
}

TEST_F(Corpus, HacksAreRejectedByTheGateTheyName) {
  auto cases = corpus("cpu", "hacks");
  ASSERT_GE(cases.size(), 15u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    // latency-like: PATH RATIO — the verdict's latency stays within RATIO of another kernel's,
    // measured in this same run (no bogus speed-up from gaming the timing).
    if (cases[i].header.count("latency-like")) {
      std::istringstream in(cases[i].header.at("latency-like"));
      std::string rel;
      double ratio = 2;
      in >> rel >> ratio;
      Case other = read_case(cases[i].file.parent_path() / rel);
      auto ov = run_all({other});
      ASSERT_TRUE(ov[0].feasible) << other.file << ": " << ov[0].feedback;
      double a = verdicts[i].latency_ms, b = ov[0].latency_ms;
      EXPECT_LE(std::max(a, b) / std::min(a, b), ratio)
          << cases[i].file << " latency " << a << " ms vs " << b << " ms for " << rel;
    }
  }
}

TEST_F(Corpus, HostileKernelsFailSafely) {
  for (const auto& p : fs::directory_iterator("/tmp"))
    if (p.path().filename().string().rfind("evk-hostile-", 0) == 0) fs::remove(p.path());
  auto cases = corpus("cpu", "hostile");
  ASSERT_GE(cases.size(), 10u);
  auto verdicts = run_all(cases, 5);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_FALSE(verdicts[i].feasible) << cases[i].file;
  }
  // Nothing was written outside the sandbox.
  for (const auto& p : fs::directory_iterator("/tmp"))
    EXPECT_NE(p.path().filename().string().rfind("evk-hostile-", 0), 0u)
        << "a hostile kernel wrote " << p.path();
}

}  // namespace
}  // namespace evk::corpus_test
