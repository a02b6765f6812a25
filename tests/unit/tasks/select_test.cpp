// The README's selection workflow, through the CLI as a user runs it: `tasks select` picks
// tasks from two level folders into a new suite with a manifest of their levels, then
// `tasks list` and `run --dry-run` read that suite. Both used to stop at once: the manifest
// reader iterated the items of a temporary (undefined behaviour).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

class Selection : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("evk-select-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), {EVK_CLI_PATH, "--workspace", (root_ / "ws").string()});
    ProcessOptions o;
    o.timeout_s = 600;
    return run_process(args, o);
  }
  // The level `tasks list` shows for a task, -1 when it is not listed.
  static int listed_level(const std::string& out, const std::string& id) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string first;
      int level = -1;
      if (words >> first >> level && first == id) return level;
    }
    return -1;
  }
  // Small level folders (copies of suites/level1 and level2 tasks): the folder names give
  // the levels, and describing three tasks is quick.
  static std::string level(int n) {
    return (data_root() / "tests/data/levels" / ("level" + std::to_string(n))).string();
  }
  fs::path root_;
};

TEST_F(Selection, SelectThenListThenDryRunAcrossLevels) {
  const std::string mine = (root_ / "mine").string();
  auto sel =
      run({"tasks", "select", level(1), level(2), "--tasks", "relu,gemm_bias_gelu", "--out", mine});
  ASSERT_TRUE(sel.ok()) << sel.describe() << "\n" << sel.out << sel.err;
  EXPECT_NE(sel.out.find("2 task(s) copied"), std::string::npos) << sel.out;
  EXPECT_TRUE(fs::exists(root_ / "mine" / "evokernel-suite.json"));

  // The folder is named "mine": the levels can only come from the manifest.
  auto list = run({"tasks", "list", mine});
  ASSERT_TRUE(list.ok()) << list.describe() << "\n" << list.out << list.err;
  EXPECT_EQ(listed_level(list.out, "relu"), 1) << list.out;
  EXPECT_EQ(listed_level(list.out, "gemm_bias_gelu"), 2) << list.out;
  EXPECT_NE(list.out.find("2 tasks, 0 broken"), std::string::npos) << list.out;

  auto dry =
      run({"run", "--suite", mine, "--model", "sim", "--dry-run", "--tasks", "gemm_bias_gelu"});
  ASSERT_TRUE(dry.ok()) << dry.describe() << "\n" << dry.out << dry.err;
  EXPECT_NE(dry.out.find("class Model"), std::string::npos) << dry.out.substr(0, 2000);
  EXPECT_NE(dry.out.find("F.gelu"), std::string::npos) << "the level-2 task's source is shown";
}

TEST_F(Selection, AMalformedManifestIsOneLineNamingTheFile) {
  const std::string mine = (root_ / "mine").string();
  auto sel = run({"tasks", "select", level(1), "--tasks", "relu", "--out", mine});
  ASSERT_TRUE(sel.ok()) << sel.describe() << "\n" << sel.err;
  const fs::path manifest = root_ / "mine" / "evokernel-suite.json";
  for (const std::string& bad : std::vector<std::string>{
           "{\"levels\": {\"relu\": \"one\"}}", "{\"levels\": {\"relu\": 1e300}}",
           "{\"levels\": [1, 2]}", "{\"levels\": {\"relu\": 1", std::string(100000, '[')}) {
    write_file_atomic(manifest, bad);
    auto list = run({"tasks", "list", mine});
    EXPECT_EQ(list.exit_code, 2) << list.describe() << "\n" << list.err;
    EXPECT_NE(list.err.find(manifest.string() + " is malformed"), std::string::npos) << list.err;
    EXPECT_EQ(std::count(list.err.begin(), list.err.end(), '\n'), 1) << list.err;
  }
}

}  // namespace
}  // namespace evk
