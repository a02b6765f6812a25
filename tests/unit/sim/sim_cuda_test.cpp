// The offline coder on the CUDA backend: from real prompts (prompts/ templates, oracle
// references, backend `cuda`), its pitfall-free drafts and its refining moves must pass the
// static, compile and symbol gates here, and the verifier as a whole (feasible on a GPU,
// no_device without one); a CUDA pitfall forced on must show where it should.
#include <gtest/gtest.h>

#include "backends/cuda/cuda_backend.h"
#include "llm/provider.h"
#include "sim/sim_internal.h"
#include "sim_fixture.h"
#include "core/temp_dir.h"

namespace evk {
namespace {

class SimCuda : public SimFixture {
 protected:
  void SetUp() override {
    if (!CudaBackend::nvcc_path()) GTEST_SKIP() << "nvcc not found: install the CUDA toolkit";
  }

  static std::string render(const TaskInfo& t, const std::string& start_code = "") {
    CudaBackend b;
    return render_for(t, b.name(), b.language(), b.source_filename(), start_code);
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
};

const std::vector<std::pair<std::string, std::string>> kCudaTasks = {
    {"level1", "relu"},          {"level1", "gelu"},
    {"level1", "leaky_relu"},    {"level1", "softmax"},
    {"level1", "log_softmax"},   {"level1", "sum_dim"},
    {"level1", "mean_dim"},      {"level1", "layer_norm"},
    {"level1", "matmul_square"}, {"level2", "gemm_relu_scale"},
};

TEST_F(SimCuda, PitfallFreeDraftsPassTheStaticAndCompileGatesAndTheVerifier) {
  auto no_device = CudaBackend().device_unavailable();
  for (const auto& [suite, id] : kCudaTasks) {
    SCOPED_TRACE(suite + "/" + id);
    const TaskInfo& t = task(suite, id);
    std::string reply = sim_reply(render(t), 1, clean());
    EXPECT_EQ(reply.find("no template"), std::string::npos) << reply;
    auto code = extract_code(reply);
    ASSERT_TRUE(code.has_value()) << reply;
    EXPECT_NE(code->find("__global__"), std::string::npos) << *code;
    EXPECT_EQ(gates(*code), "") << *code;
    VerifyOptions o;
    o.edge_set = o.second_shape = false;  // as run sets them for the sim (cmd_run.cpp)
    o.backend = "cuda";
    o.seeds = 2;
    o.timing_budget_ms = 30;
    o.use_cache = false;
    Verdict v = verifier_->verify(t, *code, o);
    if (no_device)
      EXPECT_EQ(v.category, Category::NoDevice) << v.feedback;
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
