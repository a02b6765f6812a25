// The offline coder on the ascendc backend, from real prompts (prompts/ templates, oracle
// references, backend `ascendc`): its pitfall-free drafts and its refining moves pass every
// gate on the emulated AI Core, the moves make kernels faster on the cycle model, each Ascend C
// pitfall forced on is marked and makes the draft fail. And the prompt a real model gets on
// this backend carries what it needs to act: the ABI, the launch, the API list, the constants
// and the feedback categories.
#include <gtest/gtest.h>

#include "backends/ascendc/ascendc_backend.h"
#include "core/paths.h"
#include "llm/provider.h"
#include "sim_fixture.h"

namespace evk {
namespace {

class SimAscendc : public SimFixture {
 protected:
  void SetUp() override {
    if (auto why = AscendcBackend().device_unavailable()) GTEST_SKIP() << *why;
  }
  static std::string render(const TaskInfo& t, const std::string& start_code = "") {
    AscendcBackend b;
    return render_for(t, b.name(), b.language(), b.source_filename(), start_code);
  }
  static Verdict check(const TaskInfo& t, const std::string& reply, int seeds = 2) {
    auto code = extract_code(reply);
    EXPECT_TRUE(code.has_value()) << reply;
    VerifyOptions o;
    o.backend = "ascendc";
    o.seeds = seeds;
    o.use_cache = false;
    return verifier_->verify(t, code.value_or(""), o);
  }
  static double cycles(const Verdict& v) {
    return v.metrics.value("modeled", nlohmann::json::object()).value("cycles", 0.0);
  }
};

const std::vector<std::pair<std::string, std::string>> kAscendcTasks = {
    {"level1", "relu"},
    {"level1", "sigmoid"},
    {"level1", "leaky_relu"},
    {"level1", "softmax"},
    {"level1", "log_softmax"},
    {"level1", "matmul_square"},
    {"level2", "gemm_relu_scale"},
};

TEST_F(SimAscendc, PitfallFreeDraftsPassTheVerifier) {
  for (const auto& [suite, id] : kAscendcTasks) {
    const TaskInfo& t = task(suite, id);
    std::string reply = sim_reply(render(t), 1, clean());
    Verdict v = check(t, reply);
    EXPECT_TRUE(v.feasible) << suite << "/" << id << ": " << v.category << "\n"
                            << v.feedback << "\n"
                            << reply;
  }
}

TEST_F(SimAscendc, EveryMoveKeepsKernelsCorrectAndTheyPay) {
  for (const auto& [suite, id] : kAscendcTasks) {
    const TaskInfo& t = task(suite, id);
    Verdict draft = check(t, sim_reply(render(t), 1, clean()), 1);
    Verdict moved = check(
        t, sim_reply(render(t, "// evk-sim-moves: double_buffer,simd,omp,tile\n"), 2, clean()), 1);
    EXPECT_TRUE(moved.feasible) << suite << "/" << id << ": " << moved.category << "\n"
                                << moved.feedback;
    std::printf("sim ascendc %s/%s: draft %.0f cycles, all moves %.0f\n", suite.c_str(), id.c_str(),
                cycles(draft), cycles(moved));
    // A bare product is the exception: on a fitted 128x128 matmul, 24 cores split C into
    // blocks too small to pay their copy start-ups (the model says 8 cores are faster).
    if (draft.feasible && moved.feasible && id != "matmul_square") {
      EXPECT_LE(cycles(moved), cycles(draft)) << id;
    }
  }
}

TEST_F(SimAscendc, ForcedAscendcPitfallsAreMarkedAndFail) {
  SimOptions all;
  all.pitfall_scale = 100;
  for (const char* id : {"relu", "sigmoid", "softmax"}) {
    const TaskInfo& t = task("level1", id);
    std::string reply = sim_reply(render(t), 1, all);
    EXPECT_NE(reply.find("evk-pitfall: ascendc_"), std::string::npos) << id << "\n" << reply;
    EXPECT_FALSE(check(t, reply, 1).feasible) << id;
  }
}

TEST_F(SimAscendc, TheDraftPromptCarriesTheGuideAModelCanActOn) {
  AscendcBackend b;
  Reference ref = oracle_reference(*ws_, task("level1", "relu"), 0, verifier_->oracle_options());
  PromptInputs in;
  in.backend = b.name();
  in.language = b.language();
  in.source_filename = b.source_filename();
  in.guide = read_file(b.knowledge_dir() / "guide.md");
  in.task = &task("level1", "relu");
  in.ref = &ref;
  std::string p = templates_->draft(in);
  for (const char* must :
       {"Ascend C", "kernel_operator.h", "ACLRT_LAUNCH_KERNEL", "GM_ADDR", "TQue<TPosition::VECIN",
        "DataCopyPad", "[UB_OVERFLOW]", "[UNALIGNED_COPY]", "[DIRECT_GM_ACCESS]", "| clock |",
        "192 KB", "evk_forward"})
    EXPECT_NE(p.find(must), std::string::npos) << "the prompt lacks " << must;
}

}  // namespace
}  // namespace evk
