// The corpora as tests: every file under tests/solutions, tests/hacks and tests/hostile is a
// kernel with a header saying what the verifier must conclude (format: tests/README.md).
// Adding a case is adding a file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/paths.h"
#include "core/workspace.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

struct Case {
  fs::path file;
  std::map<std::string, std::string> header;  // key -> value from "// key: value" lines
  std::string source;
};

Case read_case(const fs::path& f) {
  Case c{f, {}, read_file(f)};
  std::istringstream in(c.source);
  std::string line;
  while (std::getline(in, line) && line.rfind("//", 0) == 0) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(3, colon - 3);
    if (key.find(' ') != std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    c.header[key] = value;
  }
  return c;
}

std::vector<Case> corpus(const std::string& folder) {
  std::vector<Case> cases;
  for (const auto& e : fs::directory_iterator(data_root() / "tests" / folder))
    if (e.path().extension() == ".cpp") cases.push_back(read_case(e.path()));
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
  return cases;
}

constexpr int64_t kMaxElements = 65536;

// One workspace for every corpus test (references are cached across runs by content hash).
class Corpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ws_ = new Workspace(fs::path(EVK_BINARY_DIR) / "verify-test-ws");
    OracleOptions oo;
    oo.max_elements = kMaxElements;
    oo.timing_runs = 3;
    verifier_ = new Verifier(*ws_, oo);
  }
  static void TearDownTestSuite() {
    delete verifier_;
    delete ws_;
    for (auto& [k, s] : suites_) delete s;
    suites_.clear();
  }

  static const TaskInfo& task(const std::string& spec) {
    // "builtin:level1/relu" -> suite "builtin:level1", id "relu"
    auto slash = spec.rfind('/');
    std::string suite = spec.substr(0, slash), id = spec.substr(slash + 1);
    std::lock_guard<std::mutex> g(mu_);
    if (!suites_.count(suite)) suites_[suite] = new Suite(load_suite(*ws_, suite, kMaxElements));
    return find_task(*suites_[suite], id);
  }

  static VerifyOptions options_for(const Case& c) {
    VerifyOptions o;
    o.use_cache = false;
    o.run_timeout_s = 10;
    o.compile_timeout_s = 60;
    o.address_space_mb = 2048;
    o.timing_budget_ms = 100;
    auto h = c.header;
    if (h.count("run-timeout-s")) o.run_timeout_s = std::stod(h["run-timeout-s"]);
    if (h.count("compile-timeout-s")) o.compile_timeout_s = std::stod(h["compile-timeout-s"]);
    if (h.count("address-space-mb")) o.address_space_mb = std::stoull(h["address-space-mb"]);
    if (h.count("gates") && h["gates"] == "no-static-source") o.static_source_gate = false;
    return o;
  }

  // Verifies every case with two at a time; returns verdicts in case order.
  static std::vector<Verdict> run_all(const std::vector<Case>& cases, double run_timeout = 0) {
    for (const auto& c : cases) {
      EXPECT_TRUE(c.header.count("task") && c.header.count("expect"))
          << c.file << ": the header needs `// task:` and `// expect:` lines";
      if (c.header.count("task")) (void)task(c.header.at("task"));  // load suites up front
    }
    std::vector<Verdict> out(cases.size());
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i; (i = next.fetch_add(1)) < cases.size();) {
        const Case& c = cases[i];
        if (!c.header.count("task")) continue;
        VerifyOptions o = options_for(c);
        if (run_timeout > 0 && !c.header.count("run-timeout-s")) o.run_timeout_s = run_timeout;
        out[i] = verifier_->verify(task(c.header.at("task")), c.source, o);
      }
    };
    std::thread t(worker);
    worker();
    t.join();
    return out;
  }

  static void check(const Case& c, const Verdict& v) {
    std::string name = c.file.filename().string();
    std::string expect = c.header.count("expect") ? c.header.at("expect") : "?";
    EXPECT_EQ(v.category, expect == "feasible" ? "ok" : expect)
        << name << ": " << v.category << " — " << v.feedback;
    EXPECT_EQ(v.feasible, expect == "feasible") << name;
    if (c.header.count("gate")) {
      EXPECT_EQ(gate_name(v.gate), c.header.at("gate")) << name << ": " << v.feedback;
    }
    if (c.header.count("feedback")) {
      EXPECT_NE(v.feedback.find(c.header.at("feedback")), std::string::npos)
          << name << ": feedback lacks '" << c.header.at("feedback") << "': " << v.feedback;
    }
    // Each stage ends within its own limit plus one second.
    VerifyOptions o = options_for(c);
    EXPECT_LE(v.metrics.value("compile_s", 0.0), o.compile_timeout_s + 1) << name;
    EXPECT_LE(v.metrics.value("runner_s", 0.0), o.run_timeout_s + 1) << name;
  }

  static Workspace* ws_;
  static Verifier* verifier_;
  static std::map<std::string, Suite*> suites_;
  static std::mutex mu_;
};

Workspace* Corpus::ws_ = nullptr;
Verifier* Corpus::verifier_ = nullptr;
std::map<std::string, Suite*> Corpus::suites_;
std::mutex Corpus::mu_;

TEST_F(Corpus, SolutionsAreFeasible) {
  auto cases = corpus("solutions");
  ASSERT_GE(cases.size(), 10u);
  auto verdicts = run_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    check(cases[i], verdicts[i]);
    EXPECT_GT(verdicts[i].latency_ms, 0) << cases[i].file;
    EXPECT_GT(verdicts[i].timed_calls, 0) << cases[i].file;
  }
}

TEST_F(Corpus, HacksAreRejectedByTheGateTheyName) {
  auto cases = corpus("hacks");
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
  auto cases = corpus("hostile");
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
}  // namespace evk
