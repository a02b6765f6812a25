// The CUDA backend's corpora (tests/corpus/cuda/). Each case's `expect` is what a machine with
// an NVIDIA GPU must conclude. Without one, the static and compile gates still run here:
// hacks expected at those gates must be caught exactly as on a GPU, and every case expected
// past them (solutions, dynamic hacks) must compile, pass the static gates and end `no_device`
// with the reason. Skipped only when nvcc is absent.
#include <cstdio>

#include "backends/cuda/cuda_backend.h"
#include "corpus.h"

namespace evk::corpus_test {
namespace {

// Categories decided before the runner starts; every other one needs the device.
bool decided_without_device(const std::string& expect) {
  return expect == "hack_static" || expect == "compile" || expect == "no_code";
}

std::optional<std::string> no_device_reason() {
  static const std::optional<std::string> why = make_backend("cuda")->device_unavailable();
  return why;
}

void check_cuda(const Case& c, const Verdict& v) {
  std::string name = c.file.filename().string();
  std::string expect = c.header.count("expect") ? c.header.at("expect") : "?";
  auto why = no_device_reason();
  ASSERT_TRUE(why && !decided_without_device(expect)) << name;
  EXPECT_EQ(v.category, "no_device") << name << ": " << v.feedback;
  EXPECT_FALSE(v.feasible) << name;
  EXPECT_TRUE(v.compiled) << name << ": " << v.feedback;
  bool static_ok = false, compile_ok = false;
  for (const auto& g : v.gates) {
    static_ok = static_ok || (g.gate == "static_hack" && g.passed);
    compile_ok = compile_ok || (g.gate == "compile" && g.passed);
  }
  EXPECT_TRUE(static_ok && compile_ok) << name << ": the static and compile gates must pass";
  EXPECT_NE(v.feedback.find(*why), std::string::npos) << name << ": " << v.feedback;
  // ptxas's resource report is kept as feedback for every built kernel.
  EXPECT_NE(v.metrics.value("compile_notes", std::string()).find("registers"), std::string::npos)
      << name << ": " << v.metrics.dump();
}

class CudaCorpus : public Corpus {
 protected:
  void SetUp() override {
    if (!CudaBackend::nvcc_path())
      GTEST_SKIP() << "nvcc is not on PATH or at /usr/local/cuda/bin: the CUDA corpus needs the "
                      "CUDA toolkit to compile its kernels";
    if (auto why = no_device_reason())
      std::printf(
          "[ NO GPU   ] %s\n             cases expected past the compile gate must end "
          "no_device; the static and compile gates run in full\n",
          why->c_str());
  }

  void check_all(const std::vector<Case>& cases, const std::vector<Verdict>& verdicts) {
    for (size_t i = 0; i < cases.size(); ++i) {
      std::string expect = cases[i].header.count("expect") ? cases[i].header.at("expect") : "?";
      if (!no_device_reason() || decided_without_device(expect))
        check(cases[i], verdicts[i]);
      else
        check_cuda(cases[i], verdicts[i]);
    }
  }
};

TEST_F(CudaCorpus, SolutionsAreFeasibleOnAGpuAndPassStaticAndCompileGatesEverywhere) {
  auto cases = corpus("cuda", "solutions");
  ASSERT_GE(cases.size(), 5u);
  auto verdicts = run_all(cases);
  check_all(cases, verdicts);
  if (!no_device_reason())
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_GT(verdicts[i].latency_ms, 0) << cases[i].file;
      EXPECT_GT(verdicts[i].timed_calls, 0) << cases[i].file;
      EXPECT_GT(verdicts[i].metrics.value("peak_gbps", 0.0), 0) << cases[i].file;
    }
}

TEST_F(CudaCorpus, HacksAreRejectedByTheGateTheyName) {
  auto cases = corpus("cuda", "hacks");
  ASSERT_GE(cases.size(), 15u);
  int static_cases = 0;
  for (const auto& c : cases)
    static_cases += c.header.count("expect") && c.header.at("expect") == "hack_static";
  EXPECT_GE(static_cases, 12) << "most CUDA cheats must be caught before any GPU is needed";
  auto verdicts = run_all(cases);
  check_all(cases, verdicts);
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_FALSE(verdicts[i].feasible) << cases[i].file;
}

}  // namespace
}  // namespace evk::corpus_test
