// The Ascend C knowledge bundle (knowledge/ascendc/) cannot rot: every file has a usable front
// matter, every complete kernel passes the ascendc static gate, compiles against the emulation
// headers and passes the symbol checks, every kernel naming a built-in task is feasible on the
// emulated AI Core, and every best practice's "after" kernel takes fewer modeled cycles than
// its "before" (the ratio its text states comes from this model). The bundle seeds the memory
// under `ascendc`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "backends/ascendc/ascendc_backend.h"
#include "backends/ascendc/ascendc_source_rules.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "knowledge_bundle.h"
#include "memory/memory.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"
#include "core/temp_dir.h"
#include "verify/verifier.h"

namespace evk::knowledge {
namespace {
namespace fs = std::filesystem;

fs::path dir() {
  return data_root() / "knowledge" / "ascendc";
}

const std::vector<Item>& bundle() {
  static const std::vector<Item> items = load_bundle(dir());
  return items;
}

TEST(AscendcKnowledgeBundle, FrontMatterNamesKindTitleTags) {
  int api = 0, bp = 0, guides = 0;
  for (const auto& it : bundle()) {
    SCOPED_TRACE(it.file.filename().string());
    EXPECT_TRUE(it.kind == "api" || it.kind == "best_practice");
    EXPECT_FALSE(it.title.empty());
    EXPECT_TRUE(std::count(it.tags.begin(), it.tags.end(), "ascendc")) << "tag the backend";
    bool guide = std::count(it.tags.begin(), it.tags.end(), "guide") > 0;
    guides += guide;
    if (it.kind == "api" && !guide) ++api;
    if (it.kind == "best_practice") {
      ++bp;
      EXPECT_EQ(it.kernels().size(), 2u) << "a best practice holds the kernel before and after";
      EXPECT_NE(it.body.find("Measured"), std::string::npos);
    }
  }
  EXPECT_EQ(guides, 1);
  EXPECT_GE(api, 5);
  EXPECT_GE(bp, 4);
  std::string guide = read_file(dir() / "guide.md");
  for (const char* c : {"[UB_OVERFLOW]", "[UNALIGNED_COPY]", "[QUEUE_EMPTY]", "[TENSOR_NOT_FREED]",
                        "[GM_OUT_OF_BOUNDS]", "[DIRECT_GM_ACCESS]", "[DTYPE_UNSUPPORTED]",
                        "| clock |", "| HBM bandwidth |"})
    EXPECT_NE(guide.find(c), std::string::npos) << "the guide must list " << c;
}

TEST(AscendcKnowledgeBundle, CompleteKernelsPassStaticGateCompileAndSymbolChecks) {
  AscendcBackend backend;
  int compiled = 0;
  for (const auto& it : bundle())
    for (const CodeBlock* k : it.kernels()) {
      SCOPED_TRACE(it.file.filename().string() + ":" + std::to_string(k->line));
      auto bad = check_ascendc_source(k->code);
      EXPECT_FALSE(bad.has_value()) << *bad;
      TempDir d("evk-ascendc-knowledge-");
      CompileResult r = backend.compile(k->code, d.path(), 120);
      ASSERT_TRUE(r.ok) << r.feedback;
      auto sym = backend.check_artifact(r.artifact);
      EXPECT_FALSE(sym.has_value()) << *sym;
      ++compiled;
    }
  EXPECT_GE(compiled, 14);
}

TEST(AscendcKnowledgeBundle, KernelsAreFeasibleAndBestPracticesPayOnTheCycleModel) {
  if (auto why = AscendcBackend().device_unavailable()) GTEST_SKIP() << *why;
  Workspace ws(fs::path(EVK_BINARY_DIR) / "knowledge-test-ws");
  OracleOptions oo;
  oo.max_elements = 65536;
  oo.timing_runs = 3;
  Verifier verifier(ws, oo);
  VerifyOptions vo;
  vo.backend = "ascendc";
  vo.seeds = 2;
  vo.use_cache = false;
  std::map<std::string, Suite> suites;
  int verified = 0;
  for (const auto& it : bundle()) {
    if (it.task.empty()) continue;
    auto [suite_name, task_id] = split_task(it.task);
    if (!suites.count(suite_name)) suites[suite_name] = load_suite(ws, suite_name, oo.max_elements);
    const TaskInfo& task = find_task(suites[suite_name], task_id);
    std::vector<double> cycles;
    for (const CodeBlock* k : it.kernels()) {
      SCOPED_TRACE(it.file.filename().string() + ":" + std::to_string(k->line));
      Verdict v = verifier.verify(task, k->code, vo);
      EXPECT_TRUE(v.feasible) << it.task << ": " << v.category << ": " << v.feedback;
      cycles.push_back(v.metrics.value("modeled", nlohmann::json::object()).value("cycles", 0.0));
      ++verified;
    }
    if (it.kind == "best_practice" && cycles.size() == 2) {
      std::printf("knowledge/ascendc %s: before %.0f cycles, after %.0f (%.2fx)\n",
                  it.file.filename().c_str(), cycles[0], cycles[1], cycles[0] / cycles[1]);
      EXPECT_GT(cycles[0], 1.02 * cycles[1]) << it.file;
    }
  }
  EXPECT_GE(verified, 14);
}

TEST(AscendcKnowledgeBundle, SeedsTheMemoryUnderTheAscendcBackend) {
  fs::path root =
      fs::temp_directory_path() / ("evk-ascendc-knowledge-" + std::to_string(::getpid()));
  fs::remove_all(root);
  {
    Workspace ws(root);
    MemoryParams p;
    p.auto_seed = false;
    Memory mem(ws, p);
    EXPECT_EQ(mem.seed_from_knowledge(dir(), "ascendc"), bundle().size());
    MemoryQuery q;
    q.backend = "ascendc";
    q.op_names = {"softmax"};
    auto apis = mem.api_items(q);
    ASSERT_GE(apis.size(), 2u);
    EXPECT_TRUE(std::count(apis[0].tags.begin(), apis[0].tags.end(), "guide")) << apis[0].title;
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace evk::knowledge
