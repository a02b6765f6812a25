// Through the CLI, as a user would: a suite with a broken file, a task whose reference times
// out and a degenerate task. The run finishes, the task that can be attempted is, and every
// other task is recorded as skipped with its reason, shown in the progress, `results` and the
// JSON results; `tasks check` finds the degenerate task.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

class SkipRun : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("evk-skip-run-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    // A tiny oracle time limit: relu_small's reference fits in it, slow_forward's does not.
    env_ = {{"EVK_VERIFY_SEEDS", "2"},
            {"EVK_VERIFY_TIMING_BUDGET_MS", "100"},
            {"EVK_ORACLE_TIMING_RUNS", "3"},
            {"EVK_ORACLE_TIMEOUT_S", "8"}};
  }
  void TearDown() override { fs::remove_all(root_); }

  ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), {EVK_CLI_PATH, "--workspace", (root_ / "ws").string()});
    ProcessOptions o;
    o.env = env_;
    o.timeout_s = 600;
    return run_process(args, o);
  }
  std::string suite() const { return (data_root() / "tests/data/skip_suite").string(); }
  fs::path root_;
  std::map<std::string, std::string> env_;
};

TEST_F(SkipRun, TasksThatCannotBePreparedAreSkippedWithTheirReason) {
  auto r = run({"run", "--suite", suite(), "--model", "sim", "--budget", "2", "--seed", "1",
                "--parallel-tasks", "2", "--skip-degenerate"});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.out << r.err;
  // The progress shows each skip as it happens.
  EXPECT_NE(r.out.find("skipped [") , std::string::npos) << r.out;
  EXPECT_NE(r.out.find("broken_syntax: broken file: syntax error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("slow_forward: oracle timeout"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("zero_output: degenerate: zeros"), std::string::npos) << r.out;

  auto res = run({"results", "--json"});
  ASSERT_TRUE(res.ok()) << res.err;
  auto j = nlohmann::json::parse(res.out);
  const auto& overall = j.at("overall");
  EXPECT_EQ(overall.at("tasks"), 1);  // only relu_small was attempted...
  EXPECT_EQ(overall.at("attempts"), 2);  // ...to its whole budget
  const auto& skipped = overall.at("skipped");
  ASSERT_EQ(skipped.size(), 3u) << skipped.dump();
  EXPECT_NE(skipped.at("broken_syntax").get<std::string>().find("syntax error"), std::string::npos);
  EXPECT_NE(skipped.at("slow_forward").get<std::string>().find("did not finish within 8"),
            std::string::npos)
      << skipped.dump();
  EXPECT_NE(skipped.at("zero_output").get<std::string>().find("all-zero output passes"),
            std::string::npos);

  auto text = run({"results"});
  ASSERT_TRUE(text.ok()) << text.err;
  EXPECT_NE(text.out.find("skipped 3 task(s)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("slow_forward: oracle timeout"), std::string::npos) << text.out;

  auto runs = run({"runs"});
  EXPECT_NE(runs.out.find("done"), std::string::npos) << runs.out;
}

TEST_F(SkipRun, WithoutSkipDegenerateTheRunWarnsAndAttemptsIt) {
  auto r = run({"run", "--suite", suite(), "--tasks", "zero_output", "--model", "sim",
                "--budget", "1", "--seed", "1"});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.out << r.err;
  EXPECT_NE(r.out.find("warning [1/1] zero_output: degenerate"), std::string::npos) << r.out;
  auto res = run({"results", "--json"});
  auto j = nlohmann::json::parse(res.out);
  EXPECT_EQ(j.at("overall").at("attempts"), 1);
}

TEST_F(SkipRun, TasksCheckFindsTheDegenerateTask) {
  auto r = run({"tasks", "check", suite(), "--tasks", "relu_small,zero_output"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // a degenerate task fails the check
  EXPECT_NE(r.out.find("zero_output"), std::string::npos);
  EXPECT_NE(r.out.find("DEGENERATE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("zeros: out.0: an all-zero output passes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 tasks: 1 degenerate, 0 not checked, 1 ok"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace evk
