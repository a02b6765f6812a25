// The corpora as tests: every file under tests/corpus/<backend>/<kind>/ (kind: solutions,
// honest, hacks, hostile) is a kernel with a header saying what the verifier must conclude
// (format: tests/README.md). Adding a case is adding a file: corpus_test.cpp makes one test
// per file, named <backend>_<kind>_<file stem>, so one bad file is one failing test.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <mutex>
#include <sstream>
#include <thread>
#include <cctype>
#include <algorithm>

#include "backends/backend.h"
#include "core/parallel.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace evk::corpus_test {
namespace fs = std::filesystem;

struct Case {
  fs::path file;
  std::string backend;                        // the folder above <kind>
  std::string kind;                           // solutions, honest, hacks, hostile
  std::map<std::string, std::string> header;  // key -> value from "// key: value" lines
  std::string source;
};

inline Case read_case(const fs::path& file) {
  // Normalised: a latency-like path such as hacks/../solutions/relu.cpp must still name its
  // backend folder, not "..".
  fs::path f = file.lexically_normal();
  Case c{f, f.parent_path().parent_path().filename().string(),
         f.parent_path().filename().string(), {}, read_file(f)};
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

// Every case of tests/corpus/<backend>/<kind>/ (files named like the backend's source file).
inline std::vector<Case> corpus(const std::string& backend, const std::string& kind) {
  std::vector<Case> cases;
  std::string ext = fs::path(make_backend(backend)->source_filename()).extension().string();
  for (const auto& e : fs::directory_iterator(data_root() / "tests" / "corpus" / backend / kind))
    if (e.path().extension() == ext) cases.push_back(read_case(e.path()));
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
  return cases;
}

// Every case of every backend's folders, in folder and file order.
inline std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& backend : backend_names()) {
    fs::path root = data_root() / "tests" / "corpus" / backend;
    if (!fs::is_directory(root)) continue;
    std::vector<std::string> kinds;
    for (const auto& e : fs::directory_iterator(root))
      if (e.is_directory()) kinds.push_back(e.path().filename().string());
    std::sort(kinds.begin(), kinds.end());
    for (const auto& kind : kinds)
      for (auto& c : corpus(backend, kind)) cases.push_back(std::move(c));
  }
  return cases;
}

// The test's name: <backend>_<kind>_<stem>, with anything but letters and digits as '_'.
inline std::string case_name(const Case& c) {
  std::string n = c.backend + "_" + c.kind + "_" + c.file.stem().string();
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

// gtest prints a parameter in failure messages: the file, not the bytes.
inline void PrintTo(const Case& c, std::ostream* os) { *os << c.file.string(); }

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
    o.backend = c.backend;
    o.use_cache = false;
    o.run_timeout_s = 10;
    o.compile_timeout_s = 60;
    o.address_space_mb = 2048;
    o.timing_budget_ms = 100;
    auto h = c.header;
    if (h.count("run-timeout-s")) o.run_timeout_s = std::stod(h["run-timeout-s"]);
    if (h.count("compile-timeout-s")) o.compile_timeout_s = std::stod(h["compile-timeout-s"]);
    if (h.count("address-space-mb")) o.address_space_mb = std::stoull(h["address-space-mb"]);
    if (h.count("gates") && h["gates"].find("no-static-source") != std::string::npos)
      o.static_source_gate = false;
    if (h.count("gates") && h["gates"].find("no-instruction-scan") != std::string::npos)
      o.instruction_scan = false;
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
    parallel_for(cases.size(), 2, [&](size_t i) {
      const Case& c = cases[i];
      if (!c.header.count("task")) return;
      VerifyOptions o = options_for(c);
      if (run_timeout > 0 && !c.header.count("run-timeout-s")) o.run_timeout_s = run_timeout;
      out[i] = verifier_->verify(task(c.header.at("task")), c.source, o);
    });
    return out;
  }

  static void check(const Case& c, const Verdict& v) {
    std::string name = c.file.filename().string();
    std::string expect = c.header.count("expect") ? c.header.at("expect") : "?";
    EXPECT_EQ(category_name(v.category), expect == "feasible" ? "ok" : expect)
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

inline Workspace* Corpus::ws_ = nullptr;
inline Verifier* Corpus::verifier_ = nullptr;
inline std::map<std::string, Suite*> Corpus::suites_;
inline std::mutex Corpus::mu_;

}  // namespace evk::corpus_test

