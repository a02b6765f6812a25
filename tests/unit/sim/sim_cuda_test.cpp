// The offline coder on the CUDA backend: from real prompts (prompts/ templates, oracle
// references, backend `cuda`), its pitfall-free drafts and its refining moves must pass the
// static, compile and symbol gates here, and the verifier as a whole (feasible on a GPU,
// no_device without one); a CUDA pitfall forced on must show where it should.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "agent/prompt.h"
#include "backends/cuda/cuda_backend.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "llm/provider.h"
#include "llm/sim.h"
#include "llm/sim_internal.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"
#include "verify/temp_dir.h"
#include "verify/verifier.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

constexpr int64_t kMaxElements = 65536;

class SimCuda : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ws_ = new Workspace(fs::path(EVK_BINARY_DIR) / "sim-test-ws");
    OracleOptions oo;
    oo.max_elements = kMaxElements;
    oo.timing_runs = 3;
    verifier_ = new Verifier(*ws_, oo);
    templates_ = new PromptTemplates(data_root() / "prompts");
  }
  static void TearDownTestSuite() {
    delete templates_;
    delete verifier_;
    delete ws_;
    suites_.clear();
  }
  void SetUp() override {
    if (!CudaBackend::nvcc_path()) GTEST_SKIP() << "nvcc not found: install the CUDA toolkit";
  }

  static const TaskInfo& task(const std::string& suite, const std::string& id) {
    if (!suites_.count(suite))
      suites_[suite] = std::make_unique<Suite>(load_suite(*ws_, "builtin:" + suite, kMaxElements));
    return find_task(*suites_[suite], id);
  }

  static std::string render(const TaskInfo& t, const std::string& start_code = "") {
    Reference ref = oracle_reference(*ws_, t, 0, verifier_->oracle_options());
    CudaBackend b;
    PromptInputs in;
    in.backend = b.name();
    in.language = b.language();
    in.source_filename = b.source_filename();
    in.guide = "(the guide)";
    in.task = &t;
    in.ref = &ref;
    if (start_code.empty()) return templates_->draft(in);
    PromptAttempt sp;
    sp.idx = 1;
    sp.code = start_code;
    sp.latency_ms = 1;
    in.start_point = sp;
    return templates_->refine(in);
  }

  // The static, compile and symbol gates; "" when all pass, else what failed.
  static std::string gates(const std::string& code) {
    CudaBackend b;
    if (auto bad = b.static_check(code)) return "static: " + *bad;
    TempDir dir("evk-sim-cuda-");
    CompileResult r = b.compile(code, dir.path(), 180);
    if (!r.ok) return "compile: " + r.feedback;
    if (auto bad = b.check_artifact(r.artifact)) return "symbols: " + *bad;
    return "";
  }

  static SimOptions clean() {
    SimOptions o;
    o.pitfalls = false;
    return o;
  }

  static Workspace* ws_;
  static Verifier* verifier_;
  static PromptTemplates* templates_;
  static std::map<std::string, std::unique_ptr<Suite>> suites_;
};
Workspace* SimCuda::ws_ = nullptr;
Verifier* SimCuda::verifier_ = nullptr;
PromptTemplates* SimCuda::templates_ = nullptr;
std::map<std::string, std::unique_ptr<Suite>> SimCuda::suites_;

const std::vector<std::pair<std::string, std::string>> kTasks = {
    {"level1", "relu"},          {"level1", "gelu"},
    {"level1", "leaky_relu"},    {"level1", "softmax"},
    {"level1", "log_softmax"},   {"level1", "sum_dim"},
    {"level1", "mean_dim"},      {"level1", "layer_norm"},
    {"level1", "matmul_square"}, {"level2", "gemm_relu_scale"},
};

TEST_F(SimCuda, PitfallFreeDraftsPassTheStaticAndCompileGatesAndTheVerifier) {
  auto no_device = CudaBackend().device_unavailable();
  for (const auto& [suite, id] : kTasks) {
    SCOPED_TRACE(suite + "/" + id);
    const TaskInfo& t = task(suite, id);
    std::string reply = sim_reply(render(t), 1, clean());
    EXPECT_EQ(reply.find("no template"), std::string::npos) << reply;
    auto code = extract_code(reply);
    ASSERT_TRUE(code.has_value()) << reply;
    EXPECT_NE(code->find("__global__"), std::string::npos) << *code;
    EXPECT_EQ(gates(*code), "") << *code;
    VerifyOptions o;
    o.backend = "cuda";
    o.seeds = 2;
    o.timing_budget_ms = 30;
    o.use_cache = false;
    Verdict v = verifier_->verify(t, *code, o);
    if (no_device)
      EXPECT_EQ(v.category, "no_device") << v.feedback;
    else
      EXPECT_TRUE(v.feasible) << v.category << "\n" << v.feedback << "\n" << *code;
  }
}

// Each CUDA move (omp: grid-stride loops, simd: float4, tile: shared-memory tiles) keeps the
// kernel buildable and clean.
TEST_F(SimCuda, RefiningMovesKeepKernelsBuildable) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"level1", "relu", "simd"},
      {"level1", "gelu", "omp"},
      {"level1", "matmul_square", "tile"},
      {"level2", "gemm_relu_scale", "tile"}};
  for (const auto& [suite, id, mv] : cases) {
    SCOPED_TRACE(suite + "/" + id + " " + mv);
    sim::PromptView p = sim::parse_prompt(render(task(suite, id), "// evk-sim-moves: none\n"));
    ASSERT_EQ(p.backend, "cuda");
    sim::Plan plan;
    plan.moves.emplace_back(mv, mv == "tile" ? 32 : 0);
    sim::GenResult r = sim::generate_for_backend(p, plan);
    ASSERT_TRUE(r.ok);
    EXPECT_NE(r.code.find("evk-sim-moves: " + mv), std::string::npos) << r.code;
    EXPECT_EQ(gates(r.code), "") << r.code;
  }
}

// A pitfall marked in the code is a real mistake: the shared-memory overflow fails at the
// compile gate here, with ptxas's words; the others compile (they fail on a GPU).
TEST_F(SimCuda, CudaPitfallsAreRealMistakes) {
  sim::PromptView p = sim::parse_prompt(render(task("level1", "softmax")));
  auto with = [&](const char* name) {
    sim::Plan plan;
    plan.pitfalls.insert(name);
    sim::GenResult r = sim::generate_for_backend(p, plan);
    EXPECT_TRUE(r.features.cuda);
    EXPECT_NE(r.code.find(std::string("evk-pitfall: ") + name), std::string::npos);
    return r.code;
  };
  std::string overflow = gates(with("cuda_shared_overflow"));
  EXPECT_NE(overflow.find("compile:"), std::string::npos) << overflow;
  EXPECT_NE(overflow.find("shared"), std::string::npos) << overflow;
  EXPECT_NE(gates(with("wrong_abi")).find("compile:"), std::string::npos);
  std::string deref = with("cuda_host_deref");
  EXPECT_NE(deref.find("in[0].data)[0]"), std::string::npos) << deref;
  EXPECT_EQ(gates(deref), "");
  std::string big = with("cuda_block_too_large");
  EXPECT_NE(big.find("2048"), std::string::npos) << big;
  std::string no_shift = with("softmax_no_max_shift");
  EXPECT_EQ(no_shift.find("fmaxf(m,"), std::string::npos) << no_shift;
}

// The CPU coder's draws are untouched by the CUDA rows: none of them applies to CPU features.
TEST(SimCudaTable, CudaRowsNeverApplyToCpuKernels) {
  sim::Features cpu;
  cpu.has_reduction = cpu.has_product = true;
  for (const auto& row : sim::pitfall_table())
    if (std::string(row.name).rfind("cuda_", 0) == 0) {
      EXPECT_FALSE(row.applies(cpu)) << row.name;
    }
}

}  // namespace
}  // namespace evk
