// End to end: real prompts rendered from real references (prompts/ templates, the oracle),
// the sim's kernels compiled and checked by the real verifier. With pitfalls off, what the sim
// writes must be correct; with every pitfall forced on, it must not be; the moves must keep it
// correct and the product reorder must make it faster.
#include <gtest/gtest.h>

#include "sim_fixture.h"

namespace evk {
namespace {

class SimTasks : public SimFixture {
 protected:
  static std::string render(const TaskInfo& t, const std::string& start_code) {
    return render_for(t, "cpu", "C++17 with OpenMP", "kernel.cpp", start_code);
  }

  static Verdict check(const TaskInfo& t, const std::string& reply, int seeds = 1) {
    auto code = extract_code(reply);
    EXPECT_TRUE(code.has_value()) << reply;
    VerifyOptions o;
    o.edge_set = o.second_shape = false;  // as run sets them for the sim (cmd_run.cpp)
    o.backend = "cpu";
    o.seeds = seeds;
    o.timing_budget_ms = 30;
    o.timing_max_trials = 10;
    return verifier_->verify(t, code.value_or(""), o);
  }
};

const std::vector<std::pair<std::string, std::string>> kTasks = {
    {"level1", "relu"},
    {"level1", "softmax"},
    {"level1", "sum_dim"},
    {"level1", "argmax_dim"},
    {"level1", "matmul_transposed_b"},
    {"level1", "conv2d_stride2"},
    {"level1", "conv_transpose2d"},
    {"level1", "maxpool2d"},
    {"level1", "avgpool1d"},
    {"level1", "layer_norm"},
    {"level1", "group_norm"},
    {"level1", "batch_norm2d"},
    {"level1", "cross_entropy_loss"},
    {"level1", "cumsum_reverse"},
    {"level1", "rms_norm"},
    {"level1", "kl_div_loss"},
    {"level1", "max_dim"},
    {"level2", "conv2d_bn_relu"},
    {"level2", "gemm_layernorm_gelu"},
    {"level2", "gemm_logsumexp_relu"},
    {"level2", "conv3d_softmax_maxpool"},
    {"level2", "bmm_scale_softmax"},
    {"level2", "conv_transpose2d_maxpool_hardtanh"},
};

TEST_F(SimTasks, PitfallFreeDraftsPassTheVerifier) {
  for (const auto& [suite, id] : kTasks) {
    const TaskInfo& t = task(suite, id);
    Verdict v = check(t, sim_reply(render(t, ""), 1, clean()), 2);
    EXPECT_TRUE(v.feasible) << suite << "/" << id << ": " << v.category << "\n" << v.feedback;
  }
}

TEST_F(SimTasks, EveryMoveKeepsKernelsCorrect) {
  const char* starts[] = {"// evk-sim-moves: reorder,simd,notemps,fuse,omp\n",
                          "// evk-sim-moves: notemps,reorder,simd,omp,fuse,tile:48\n"};
  for (const auto& [suite, id] : kTasks) {
    const TaskInfo& t = task(suite, id);
    for (const char* s : starts) {
      Verdict v = check(t, sim_reply(render(t, s), 2, clean()));
      EXPECT_TRUE(v.feasible) << suite << "/" << id << " from " << s << v.category << "\n"
                              << v.feedback;
    }
  }
}

TEST_F(SimTasks, ForcedPitfallsMakeDraftsFail) {
  SimOptions all;
  all.pitfall_scale = 100;  // every applicable pitfall
  for (const char* id : {"relu", "matmul_square", "conv2d"}) {
    const TaskInfo& t = task("level1", id);
    std::string reply = sim_reply(render(t, ""), 1, all);
    EXPECT_NE(reply.find("evk-pitfall: wrong_abi"), std::string::npos);
    EXPECT_FALSE(check(t, reply).feasible) << id;
  }
}

TEST_F(SimTasks, ReorderingAProductIsFaster) {
  const TaskInfo& t = task("level1", "matmul_square");
  VerifyOptions o;
  o.edge_set = o.second_shape = false;  // as run sets them for the sim (cmd_run.cpp)
  o.backend = "cpu";
  o.seeds = 1;
  o.timing_budget_ms = 300;
  o.timing_max_trials = 50;
  Verdict naive = verifier_->verify(t, *extract_code(sim_reply(render(t, ""), 1, clean())), o);
  std::string reply;
  for (uint64_t s = 0; s < 50 && reply.find("evk-sim-moves: reorder") == std::string::npos; ++s)
    reply = sim_reply(render(t, "// evk-sim-moves: none\n"), s, clean());
  ASSERT_NE(reply.find("evk-sim-moves: reorder"), std::string::npos);
  Verdict fast = verifier_->verify(t, *extract_code(reply), o);
  ASSERT_TRUE(naive.feasible && fast.feasible) << naive.feedback << fast.feedback;
  EXPECT_GT(naive.latency_ms / fast.latency_ms, 1.5)
      << naive.latency_ms << " vs " << fast.latency_ms;
}

}  // namespace
}  // namespace evk
