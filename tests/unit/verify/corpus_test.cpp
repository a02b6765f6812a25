// The corpora (tests/corpus/<backend>/<kind>/): one test per file, named after it. What each
// kind must get:
//  - solutions, honest: FEASIBLE (honest files are the false-rejection corpus: code in the
//    styles models write that an over-eager rule would refuse), with a latency;
//  - hacks: the verdict and gate their header names, never FEASIBLE; `latency-like` cases
//    also stay within a ratio of another kernel's latency measured in the same run;
//  - hostile: their verdict, never FEASIBLE, and no file /tmp/evk-hostile-* left behind.
// opencl cases are skipped without an OpenCL device; cuda cases without nvcc, and without a
// GPU a cuda case expected past the compile gate must compile, pass the static gates and end
// `no_device` (scripts/gpu-check runs the full verdicts on a GPU).
#include "corpus.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "backends/cuda/cuda_backend.h"

namespace evk::corpus_test {
namespace {

// Categories decided before the runner starts; every other one needs the device.
bool decided_without_device(const std::string& expect) {
  return expect == "hack_static" || expect == "compile" || expect == "no_code";
}

std::optional<std::string> no_device_reason(const std::string& backend) {
  return make_backend(backend)->device_unavailable();
}

void check_cuda_without_device(const Case& c, const Verdict& v, const std::string& why) {
  std::string name = c.file.filename().string();
  EXPECT_EQ(v.category, Category::NoDevice) << name << ": " << v.feedback;
  EXPECT_FALSE(v.feasible) << name;
  EXPECT_TRUE(v.compiled) << name << ": " << v.feedback;
  bool static_ok = false, compile_ok = false;
  for (const auto& g : v.gates) {
    static_ok = static_ok || (g.gate == Gate::StaticHack && g.passed);
    compile_ok = compile_ok || (g.gate == Gate::Compile && g.passed);
  }
  EXPECT_TRUE(static_ok && compile_ok) << name << ": the static and compile gates must pass";
  EXPECT_NE(v.feedback.find(why), std::string::npos) << name << ": " << v.feedback;
  // ptxas's resource report is kept as feedback for every built kernel.
  EXPECT_NE(v.metrics.value("compile_notes", std::string()).find("registers"), std::string::npos)
      << name << ": " << v.metrics.dump();
}

// Hostile cases of all test processes run one at a time: each checks /tmp for files that a
// kernel wrote, which another hostile case running at once would confuse.
class HostileLock {
 public:
  HostileLock() : fd_(::open("/tmp/evk-corpus-hostile.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0666)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~HostileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  HostileLock(const HostileLock&) = delete;
  HostileLock& operator=(const HostileLock&) = delete;

 private:
  int fd_;
};

std::vector<fs::path> hostile_leftovers() {
  std::vector<fs::path> out;
  for (const auto& p : fs::directory_iterator("/tmp"))
    if (p.path().filename().string().rfind("evk-hostile-", 0) == 0) out.push_back(p.path());
  return out;
}

class CorpusCase : public Corpus, public ::testing::WithParamInterface<Case> {};

TEST_P(CorpusCase, GetsItsExpectedVerdict) {
  const Case& c = GetParam();
  std::optional<std::string> no_device;
  if (c.backend == "opencl") {
    if (auto why = no_device_reason("opencl"))
      GTEST_SKIP() << "no OpenCL device to run kernels on: " << *why;
  } else if (c.backend == "cuda") {
    if (!CudaBackend::nvcc_path())
      GTEST_SKIP() << "nvcc is not on PATH or at /usr/local/cuda/bin: the CUDA corpus needs the "
                      "CUDA toolkit to compile its kernels";
    no_device = no_device_reason("cuda");
  }
  const std::string expect = c.header.count("expect") ? c.header.at("expect") : "?";
  const bool hostile = c.kind == "hostile";
  std::optional<HostileLock> lock;
  if (hostile) {
    lock.emplace();
    for (const auto& p : hostile_leftovers()) fs::remove(p);
  }
  Verdict v = run_all({c}, hostile ? 5 : 0)[0];

  if (no_device && !decided_without_device(expect)) {
    check_cuda_without_device(c, v, *no_device);
    return;
  }
  check(c, v);
  if (c.kind == "solutions" || c.kind == "honest") {
    EXPECT_GT(v.latency_ms, 0) << c.file;
    EXPECT_GT(v.timed_calls, 0) << c.file;
    // The replayed API trace charges an honest kernel exactly what the emulator in the
    // kernel's own process charged (the trust design changes no honest cycle count).
    if (c.backend == "ascendc" && v.feasible) {
      ASSERT_TRUE(v.metrics.contains("runner_modeled_ms")) << c.file;
      EXPECT_EQ(v.metrics["runner_modeled_ms"].get<double>(),
                v.metrics["modeled"].value("ms", -1.0))
          << c.file;
    }
  } else if (expect != "feasible") {
    EXPECT_FALSE(v.feasible) << c.file;
  }
  if (hostile)
    for (const auto& p : hostile_leftovers()) ADD_FAILURE() << "a hostile kernel wrote " << p;
  // latency-like: PATH RATIO — the verdict's latency is not RATIO times below another kernel's
  // (no bogus speed-up from gaming the timing). One-sided: a hack that comes out slower gained
  // nothing. A modeled latency is deterministic: one verification of each. A measured one is
  // compared on verifications of the two made at the same time (two jobs, one CPU each), so
  // that the machine's load falls on both alike; the ratio is the median of up to three such
  // pairs (the first alone when it passes): a failure needs two of three pairs 2x apart
  // while each pair shared its load, which noise on this machine has not reached.
  if (c.header.count("latency-like")) {
    std::istringstream in(c.header.at("latency-like"));
    std::string rel;
    double ratio = 2;
    in >> rel >> ratio;
    Case other = read_case(c.file.parent_path() / rel);
    const bool modeled = c.backend == "ascendc";
    std::vector<double> ratios;
    std::string seen;
    for (int pair = 0; pair < (modeled ? 1 : 3); ++pair) {
      auto vs = modeled ? std::vector<Verdict>{v, run_all({other})[0]} : run_all({c, other});
      ASSERT_TRUE(vs[1].feasible) << other.file << ": " << vs[1].feedback;
      if (!vs[0].feasible) continue;  // the case's own verdict is checked above
      ratios.push_back(vs[1].latency_ms / vs[0].latency_ms);
      seen += fmt::format(" {:.3f}/{:.3f} ms", vs[0].latency_ms, vs[1].latency_ms);
      if (pair == 0 && ratios[0] <= ratio) break;
    }
    ASSERT_FALSE(ratios.empty()) << c.file << ": no feasible verdict to compare";
    std::sort(ratios.begin(), ratios.end());
    EXPECT_LE(ratios[ratios.size() / 2], ratio)
        << c.file << " latency vs " << rel << " (pairs):" << seen;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusCase, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return case_name(i.param);
                         });

// The corpora keep their breadth: a folder emptied by mistake fails here, not silently.
TEST(CorpusFolders, HoldAtLeastTheirMinimumOfCases) {
  const std::map<std::string, size_t> minimum = {
      {"cpu/solutions", 10},   {"cpu/honest", 15},     {"cpu/hacks", 15},     {"cpu/hostile", 10},
      {"opencl/solutions", 5}, {"opencl/hacks", 10},   {"opencl/hostile", 6}, {"cuda/solutions", 5},
      {"cuda/hacks", 15},      {"ascendc/honest", 15}, {"ascendc/hacks", 22}};
  std::map<std::string, size_t> count;
  std::set<std::string> names;
  int cuda_static = 0;
  for (const auto& c : all_cases()) {
    ++count[c.backend + "/" + c.kind];
    EXPECT_TRUE(names.insert(case_name(c)).second) << "two corpus files map to " << case_name(c);
    EXPECT_TRUE(c.header.count("task") && c.header.count("expect"))
        << c.file << ": the header needs `// task:` and `// expect:` lines";
    cuda_static += c.backend == "cuda" && c.kind == "hacks" && c.header.count("expect") &&
                   c.header.at("expect") == "hack_static";
  }
  for (const auto& [folder, n] : minimum) EXPECT_GE(count[folder], n) << folder;
  EXPECT_GE(cuda_static, 12) << "most CUDA cheats must be caught before any GPU is needed";
}

}  // namespace
}  // namespace evk::corpus_test
