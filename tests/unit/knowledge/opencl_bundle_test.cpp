// The opencl knowledge bundle cannot rot: every file has a usable front matter, every
// complete kernel passes the opencl static gate, and every kernel whose file names a built-in
// task passes the verifier (every gate, on the machine's OpenCL device) on that task.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "backends/backend.h"
#include "backends/opencl/opencl_source_rules.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "knowledge_bundle.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace evk::knowledge {
namespace {
namespace fs = std::filesystem;

fs::path opencl_dir() {
  return data_root() / "knowledge" / "opencl";
}

TEST(OpenClKnowledgeBundle, FrontMatterAndStaticGate) {
  auto items = load_bundle(opencl_dir());
  int guides = 0, kernels = 0, bps = 0;
  for (const auto& it : items) {
    SCOPED_TRACE(it.file.filename().string());
    EXPECT_TRUE(it.kind == "api" || it.kind == "best_practice") << it.kind;
    EXPECT_GE(it.tags.size(), 2u);
    guides += std::count(it.tags.begin(), it.tags.end(), "guide") > 0;
    if (it.kind == "best_practice") {
      ++bps;
      EXPECT_EQ(it.kernels().size(), 2u) << "a best practice holds the kernel before and after";
      EXPECT_NE(it.body.find("Measured"), std::string::npos);
    }
    for (const CodeBlock* k : it.kernels()) {
      ++kernels;
      auto bad = check_opencl_source(k->code);
      EXPECT_FALSE(bad.has_value()) << "line " << k->line << ": " << *bad;
    }
  }
  EXPECT_EQ(guides, 1);
  EXPECT_GE(bps, 2);
  EXPECT_GE(kernels, 6);
}

TEST(OpenClKnowledgeBundle, KernelsNamingATaskPassTheVerifier) {
  if (auto why = make_backend("opencl")->device_unavailable())
    GTEST_SKIP() << "no OpenCL device to run kernels on: " << *why;
  Workspace ws(fs::path(EVK_BINARY_DIR) / "knowledge-test-ws");
  OracleOptions oo;
  oo.max_elements = 1 << 16;
  oo.timing_runs = 3;
  Verifier verifier(ws, oo);
  VerifyOptions vo;
  vo.backend = "opencl";
  vo.seeds = 2;
  vo.timing_budget_ms = 30;
  vo.timing_max_trials = 5;
  vo.use_cache = false;
  std::map<std::string, Suite> suites;
  int verified = 0;
  for (const auto& it : load_bundle(opencl_dir())) {
    if (it.task.empty()) continue;
    auto [suite_name, task_id] = split_task(it.task);
    if (!suites.count(suite_name)) suites[suite_name] = load_suite(ws, suite_name, oo.max_elements);
    const TaskInfo& task = find_task(suites[suite_name], task_id);
    for (const CodeBlock* k : it.kernels()) {
      SCOPED_TRACE(it.file.filename().string() + ":" + std::to_string(k->line));
      Verdict v = verifier.verify(task, k->code, vo);
      EXPECT_TRUE(v.feasible) << it.task << ": " << v.category << ": " << v.feedback;
      ++verified;
    }
  }
  EXPECT_GE(verified, 6);
}

}  // namespace
}  // namespace evk::knowledge
