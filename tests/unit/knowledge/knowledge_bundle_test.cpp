// The CPU knowledge cpu_bundle cannot rot: every file has a usable front matter, every complete
// kernel passes the static gate and compiles with the backend's flags, every kernel whose file
// names a built-in task passes the verifier on it (sizes shrunk so the test stays fast), and
// the cpu_bundle seeds a new workspace's memory the same way every time.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "backends/cpu/source_rules.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "knowledge_bundle.h"
#include "tasks/oracle.h"
#include "memory/memory.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace evk::knowledge {
namespace {
namespace fs = std::filesystem;

fs::path bundle_dir() { return data_root() / "knowledge" / "cpu"; }

// Oracle references are cached here, keyed by task content: a second run reuses them.
fs::path test_workspace() { return fs::path(EVK_BINARY_DIR) / "knowledge-test-ws"; }

const std::vector<Item>& cpu_bundle() {
  static const std::vector<Item> items = load_bundle(bundle_dir());
  return items;
}

TEST(KnowledgeBundle, FrontMatterNamesKindTitleTags) {
  const std::set<std::string> kinds = {"api", "best_practice"};
  int api = 0, bp = 0, guides = 0;
  for (const auto& it : cpu_bundle()) {
    SCOPED_TRACE(it.file.filename().string());
    EXPECT_TRUE(kinds.count(it.kind)) << "kind '" << it.kind << "'";
    EXPECT_FALSE(it.title.empty());
    EXPECT_GE(it.tags.size(), 2u) << "tags should name the operators and the techniques";
    for (const auto& t : it.tags) EXPECT_EQ(t.find(' '), std::string::npos) << "tag '" << t << "'";
    if (!it.task.empty()) {
      EXPECT_NO_THROW(split_task(it.task));
    }
    bool guide = std::count(it.tags.begin(), it.tags.end(), "guide") > 0;
    guides += guide;
    if (it.kind == "api" && !guide) ++api;
    if (it.kind == "best_practice") {
      ++bp;
      EXPECT_FALSE(it.task.empty()) << "a best practice names the task it was measured on";
      EXPECT_EQ(it.kernels().size(), 2u) << "a best practice holds the kernel before and after";
      EXPECT_NE(it.body.find("Measured"), std::string::npos) << "a best practice quotes its measurement";
    }
  }
  EXPECT_EQ(guides, 1);
  EXPECT_TRUE(fs::exists(bundle_dir() / "guide.md"));
  EXPECT_GE(api, 12);
  EXPECT_GE(bp, 10);
}

TEST(KnowledgeBundle, EveryCppBlockIsAKernelOrMarkedFragment) {
  int complete = 0, fragments = 0;
  for (const auto& it : cpu_bundle()) {
    for (const auto& b : it.blocks) {
      SCOPED_TRACE(it.file.filename().string() + ":" + std::to_string(b.line));
      if (!b.is_cpp()) continue;
      EXPECT_TRUE(b.info == "cpp" || b.is_fragment()) << "info string '" << b.info << "'";
      if (b.is_fragment()) {
        ++fragments;
      } else {
        ++complete;
        EXPECT_NE(b.code.find("evk_forward"), std::string::npos)
            << "a complete kernel defines evk_forward; mark partial code 'cpp fragment'";
        EXPECT_NE(b.code.find("evokernel/kernel_abi.h"), std::string::npos);
      }
    }
  }
  std::printf("knowledge/cpu: %d complete kernels, %d fragments\n", complete, fragments);
  EXPECT_GE(complete, 12);
}

// Every complete kernel passes the backend's static gate and compiles with its flags (own
// compile, so a kernel without a task is covered too).
TEST(KnowledgeBundle, CompleteKernelsPassStaticGateAndCompile) {
  Workspace ws(test_workspace());
  fs::path work = ws.cache_dir() / "kernels";
  int compiled = 0;
  for (const auto& it : cpu_bundle()) {
    auto kernels = it.kernels();
    for (size_t k = 0; k < kernels.size(); ++k) {
      SCOPED_TRACE(it.file.filename().string() + ":" + std::to_string(kernels[k]->line));
      auto bad = check_cpu_source(kernels[k]->code);
      EXPECT_FALSE(bad.has_value()) << *bad;
      try {
        compile_kernel(kernels[k]->code, bundle_dir(), work, it.file.stem().string() + "_" + std::to_string(k));
        ++compiled;
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
  std::printf("knowledge/cpu: %d kernels compiled\n", compiled);
}

// Where a file names a built-in task, each of its complete kernels goes through the verifier
// (every gate) on that task, with sizes shrunk to 2^18 input elements, 2 seeds and a short
// timing budget so the test stays fast. References are cached in the test workspace.
TEST(KnowledgeBundle, KernelsNamingATaskPassTheVerifier) {
  Workspace ws(test_workspace());
  OracleOptions oo;
  oo.max_elements = 1 << 18;
  oo.timing_runs = 3;
  Verifier verifier(ws, oo);
  VerifyOptions vo;
  vo.backend = "cpu";
  vo.seeds = 2;
  vo.timing_budget_ms = 30;
  vo.timing_max_trials = 5;
  vo.use_cache = false;  // a cached verdict would hide a gate that got stricter
  std::map<std::string, Suite> suites;
  int verified = 0;
  for (const auto& it : cpu_bundle()) {
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
  std::printf("knowledge/cpu: %d kernels verified on their task\n", verified);
  EXPECT_GE(verified, 12);
}

// The cpu_bundle seeds a new workspace's memory: one item per file with the file's kind, title
// and tags; seeding the same cpu_bundle again changes nothing, and a second new workspace gets
// the same items.
TEST(KnowledgeBundle, SeedingANewWorkspaceTwiceGivesTheSameItems) {
  auto items_of = [](const fs::path& root) {
    fs::remove_all(root);
    Workspace ws(root);
    MemoryParams p;
    p.auto_seed = false;
    Memory mem(ws, p);
    size_t first = mem.seed_from_knowledge(bundle_dir(), "cpu");
    EXPECT_EQ(first, cpu_bundle().size());
    EXPECT_EQ(mem.seed_from_knowledge(bundle_dir(), "cpu"), 0u) << "reloading must change nothing";
    std::vector<std::string> keys;
    for (const auto& item : mem.list(std::nullopt))
      keys.push_back(kind_name(item.kind) + "|" + item.title + "|" + std::to_string(item.tags.size()) + "|" +
                     std::to_string(std::hash<std::string>{}(item.body)));
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  fs::path base = fs::temp_directory_path() / ("evk-knowledge-seed-" + std::to_string(::getpid()));
  auto a = items_of(base / "a");
  auto b = items_of(base / "b");
  fs::remove_all(base);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), cpu_bundle().size());
  std::vector<std::string> want;
  for (const auto& it : cpu_bundle()) want.push_back(it.kind + "|" + it.title + "|" + std::to_string(it.tags.size()));
  std::sort(want.begin(), want.end());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].substr(0, a[i].rfind('|')), want[i]);
}

}  // namespace
}  // namespace evk::knowledge
