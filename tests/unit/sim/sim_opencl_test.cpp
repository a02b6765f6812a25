// The offline coder on the opencl backend: from real prompts (prompts/ templates, oracle
// references, backend `opencl`), its pitfall-free drafts and its refining moves must pass
// every gate of the verifier on the machine's OpenCL device; each OpenCL pitfall forced on
// must be marked and make the draft fail.
#include <gtest/gtest.h>

#include "backends/opencl/opencl_backend.h"
#include "llm/provider.h"
#include "sim_fixture.h"

namespace evk {
namespace {

class SimOpenCl : public SimFixture {
 protected:
  void SetUp() override {
    if (auto why = OpenClBackend().device_unavailable())
      GTEST_SKIP() << "no OpenCL device: " << *why;
  }

  static std::string render(const TaskInfo& t, const std::string& start_code = "") {
    OpenClBackend b;
    return render_for(t, b.name(), b.language(), b.source_filename(), start_code);
  }

  static Verdict check(const TaskInfo& t, const std::string& reply, int seeds = 2) {
    auto code = extract_code(reply);
    EXPECT_TRUE(code.has_value()) << reply;
    VerifyOptions o;
    o.edge_set = o.second_shape = false;  // as run sets them for the sim (cmd_run.cpp)
    o.backend = "opencl";
    o.seeds = seeds;
    o.timing_budget_ms = 30;
    o.timing_max_trials = 10;
    o.use_cache = false;
    return verifier_->verify(t, code.value_or(""), o);
  }
};

// Elementwise (with a chain and a broadcast operand), row operations, a reduction over a
// middle dimension and products.
const std::vector<std::pair<std::string, std::string>> kOpenclTasks = {
    {"level1", "relu"},        {"level1", "gelu"},          {"level1", "softmax"},
    {"level1", "log_softmax"}, {"level1", "layer_norm"},    {"level1", "sum_dim"},
    {"level1", "mean_dim"},    {"level1", "matmul_square"}, {"level1", "matmul_rect"},
};

TEST_F(SimOpenCl, PitfallFreeDraftsPassTheVerifier) {
  int checked = 0;
  for (const auto& [suite, id] : kOpenclTasks) {
    const TaskInfo& t = task(suite, id);
    std::string reply = sim_reply(render(t), 1, clean());
    if (reply.find("no OpenCL template") != std::string::npos) continue;  // counted below
    Verdict v = check(t, reply);
    EXPECT_TRUE(v.feasible) << suite << "/" << id << ": " << v.category << "\n" << v.feedback;
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(kOpenclTasks.size())) << "every listed task has a template";
}

TEST_F(SimOpenCl, EveryMoveKeepsKernelsCorrect) {
  for (const auto& [suite, id] : kOpenclTasks) {
    const TaskInfo& t = task(suite, id);
    Verdict v = check(
        t, sim_reply(render(t, "// evk-sim-moves: simd,reorder,omp,tile:32\n"), 2, clean()), 1);
    EXPECT_TRUE(v.feasible) << suite << "/" << id << ": " << v.category << "\n" << v.feedback;
  }
}

TEST_F(SimOpenCl, ForcedOpenClPitfallsAreMarkedAndFail) {
  SimOptions all;
  all.pitfall_scale = 100;  // every applicable pitfall
  struct Case {
    const char* id;
    const char* marker;
  };
  for (const Case& c :
       {Case{"softmax", "ocl_missing_barrier"}, Case{"relu", "ocl_arg_type_mismatch"},
        Case{"matmul_square", "ocl_arg_type_mismatch"}}) {
    const TaskInfo& t = task("level1", c.id);
    std::string reply = sim_reply(render(t), 1, all);
    EXPECT_NE(reply.find(std::string("evk-pitfall: ") + c.marker), std::string::npos)
        << c.id << "\n"
        << reply;
    EXPECT_FALSE(check(t, reply, 1).feasible) << c.id;
  }
}

}  // namespace
}  // namespace evk
