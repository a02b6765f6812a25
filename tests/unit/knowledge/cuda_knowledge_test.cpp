// The CUDA knowledge cuda_bundle (knowledge/cuda/) cannot rot either: every file has a usable front
// matter, every complete kernel passes the CUDA static gate, compiles with the backend's nvcc
// flags and passes the symbol checks; every kernel whose file names a built-in task goes
// through the verifier on it: feasible on a GPU machine (with its latency printed), `no_device`
// after the static and compile gates elsewhere. The cuda_bundle seeds the memory under `cuda`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_source_rules.h"
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

fs::path cuda_dir() {
  return data_root() / "knowledge" / "cuda";
}

const std::vector<Item>& cuda_bundle() {
  static const std::vector<Item> items = load_bundle(cuda_dir());
  return items;
}

TEST(CudaKnowledgeBundle, FrontMatterNamesKindTitleTags) {
  int api = 0, bp = 0, guides = 0;
  for (const auto& it : cuda_bundle()) {
    SCOPED_TRACE(it.file.filename().string());
    EXPECT_TRUE(it.kind == "api" || it.kind == "best_practice") << "kind '" << it.kind << "'";
    EXPECT_FALSE(it.title.empty());
    EXPECT_GE(it.tags.size(), 2u);
    EXPECT_TRUE(std::count(it.tags.begin(), it.tags.end(), "cuda")) << "tag the backend";
    if (!it.task.empty()) {
      EXPECT_NO_THROW(split_task(it.task));
    }
    bool guide = std::count(it.tags.begin(), it.tags.end(), "guide") > 0;
    guides += guide;
    if (it.kind == "api" && !guide) ++api;
    if (it.kind == "best_practice") {
      ++bp;
      EXPECT_EQ(it.kernels().size(), 2u) << "a best practice holds the kernel before and after";
      EXPECT_NE(it.body.find("Measured"), std::string::npos) << "say what was measured (or not)";
    }
    for (const auto& b : it.blocks) {
      if (b.is_complete_kernel()) {
        EXPECT_NE(b.code.find("evk_forward"), std::string::npos);
      }
    }
  }
  EXPECT_EQ(guides, 1);
  EXPECT_TRUE(fs::exists(cuda_dir() / "guide.md"));
  EXPECT_TRUE(fs::exists(cuda_dir() / "evokernel" / "kernel_abi.h"));
  EXPECT_GE(api, 3);
  EXPECT_GE(bp, 2);
}

TEST(CudaKnowledgeBundle, CompleteKernelsPassStaticGateCompileAndSymbolChecks) {
  if (!CudaBackend::nvcc_path()) GTEST_SKIP() << "nvcc not found: install the CUDA toolkit";
  CudaBackend backend;
  int compiled = 0;
  for (const auto& it : cuda_bundle()) {
    for (const CodeBlock* k : it.kernels()) {
      SCOPED_TRACE(it.file.filename().string() + ":" + std::to_string(k->line));
      auto bad = check_cuda_source(k->code);
      EXPECT_FALSE(bad.has_value()) << *bad;
      TempDir dir("evk-cuda-knowledge-");
      CompileResult r = backend.compile(k->code, dir.path(), 180);
      ASSERT_TRUE(r.ok) << r.feedback;
      auto sym = backend.check_artifact(r.artifact);
      EXPECT_FALSE(sym.has_value()) << *sym;
      EXPECT_EQ(r.notes.find("SPILLS"), std::string::npos)
          << "a seed kernel should not spill: " << r.notes;
      ++compiled;
    }
  }
  std::printf("knowledge/cuda: %d kernels compiled and checked\n", compiled);
  EXPECT_GE(compiled, 8);
}

TEST(CudaKnowledgeBundle, KernelsNamingATaskPassTheVerifierOrWaitForAGpu) {
  if (!CudaBackend::nvcc_path()) GTEST_SKIP() << "nvcc not found: install the CUDA toolkit";
  auto no_device = CudaBackend().device_unavailable();
  if (no_device) std::printf("[ NO GPU   ] %s: kernels must end no_device\n", no_device->c_str());
  Workspace ws(fs::path(EVK_BINARY_DIR) / "knowledge-test-ws");
  OracleOptions oo;
  oo.max_elements = 1 << 18;
  oo.timing_runs = 3;
  Verifier verifier(ws, oo);
  VerifyOptions vo;
  vo.backend = "cuda";
  vo.seeds = 2;
  vo.timing_budget_ms = 50;
  vo.use_cache = false;
  std::map<std::string, Suite> suites;
  int verified = 0;
  for (const auto& it : cuda_bundle()) {
    if (it.task.empty()) continue;
    auto [suite_name, task_id] = split_task(it.task);
    if (!suites.count(suite_name)) suites[suite_name] = load_suite(ws, suite_name, oo.max_elements);
    const TaskInfo& task = find_task(suites[suite_name], task_id);
    for (const CodeBlock* k : it.kernels()) {
      SCOPED_TRACE(it.file.filename().string() + ":" + std::to_string(k->line));
      Verdict v = verifier.verify(task, k->code, vo);
      if (no_device) {
        EXPECT_EQ(v.category, Category::NoDevice) << v.feedback;
        EXPECT_TRUE(v.compiled) << v.feedback;
      } else {
        EXPECT_TRUE(v.feasible) << it.task << ": " << v.category << ": " << v.feedback;
        std::printf("knowledge/cuda %s:%d on %s: %.4g ms (PyTorch eager %.4g ms)\n",
                    it.file.filename().c_str(), k->line, it.task.c_str(), v.latency_ms, v.eager_ms);
      }
      ++verified;
    }
  }
  EXPECT_GE(verified, 8);
}

TEST(CudaKnowledgeBundle, SeedsTheMemoryUnderTheCudaBackend) {
  fs::path root = fs::temp_directory_path() / ("evk-cuda-knowledge-" + std::to_string(::getpid()));
  fs::remove_all(root);
  {
    Workspace ws(root);
    MemoryParams p;
    p.auto_seed = false;
    Memory mem(ws, p);
    EXPECT_EQ(mem.seed_from_knowledge(cuda_dir(), "cuda"), cuda_bundle().size());
    EXPECT_EQ(mem.seed_from_knowledge(cuda_dir(), "cuda"), 0u) << "reloading must change nothing";
    MemoryQuery q;
    q.backend = "cuda";
    q.op_names = {"softmax"};
    auto apis = mem.api_items(q);
    ASSERT_GE(apis.size(), 2u);
    EXPECT_TRUE(std::count(apis[0].tags.begin(), apis[0].tags.end(), "guide")) << apis[0].title;
    bool reduction = false;
    for (const auto& a : apis)
      reduction = reduction || a.title.find("Row reductions") != std::string::npos;
    EXPECT_TRUE(reduction) << "the softmax op must bring the row-reduction template";
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace evk::knowledge
