// The diagnosis of a feasible kernel (verify/diagnose.h): the named bound from the cost
// model's per-pipe figures, from the roofline, from ptxas; and, through the real verifier and
// the Ascend C runner, that real kernels get the bound their code implies (a scalar loop is
// scalar-bound, one buffer per queue serialises the pipes, one block on 24 cores says so).
#include "verify/diagnose.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/ascendc/npu_constants.h"
#include "backends/backend.h"
#include "core/paths.h"
#include "core/verdict.h"
#include "core/workspace.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace evk {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// One launch of `cycles` on its slowest core with these busy cycles (mte2, vector, cube,
// mte3, scalar).
json launch(double cycles, std::array<double, 5> busy, double mean, uint32_t dim = 24,
            uint32_t single = 0) {
  return {{"kernel", "k"},
          {"block_dim", dim},
          {"cycles", cycles},
          {"pipes",
           {{"busy",
             {{"mte2", busy[0]},
              {"vector", busy[1]},
              {"cube", busy[2]},
              {"mte3", busy[3]},
              {"scalar", busy[4]}}},
            {"mean_core", mean},
            {"blocks", 1},
            {"ub_peak", 65536},
            {"queues", 2},
            {"single_buffered", single}}}};
}

json modeled(std::vector<json> launches) {
  return {{"cycles", 0}, {"clock_ghz", 1.65}, {"launch_us", 5.0}, {"launches", launches}};
}

TEST(Diagnose, APipeThatFillsTheSpanIsTheBound) {
  Diagnosis d = diagnose_modeled(modeled({launch(100000, {80000, 30000, 0, 20000, 500}, 99000)}));
  EXPECT_EQ(d.bound, Bound::Mte2);
  EXPECT_EQ(d.basis, "cost model");
  ASSERT_FALSE(d.facts.empty());
  EXPECT_NE(d.facts[0].find("MTE2 (copy in) 80%"), std::string::npos) << d.facts[0];
  EXPECT_NEAR(d.figures["pipe_share"]["vector"].get<double>(), 0.3, 1e-9);
}

TEST(Diagnose, PipesThatTakeTurnsAreSerialised) {
  Diagnosis d =
      diagnose_modeled(modeled({launch(100000, {40000, 35000, 0, 20000, 500}, 99000, 24, 2)}));
  EXPECT_EQ(d.bound, Bound::Serialised);
  EXPECT_NE(render_diagnosis(d).find("2 of 2 queue(s) have one buffer"), std::string::npos)
      << render_diagnosis(d);
}

TEST(Diagnose, LaunchesImbalanceAndScalar) {
  // 10 launches of 1000 cycles (0.6 us each) against 5 us of fixed cost each.
  std::vector<json> many(10, launch(1000, {500, 200, 0, 100, 50}, 990));
  EXPECT_EQ(diagnose_modeled(modeled(many)).bound, Bound::Launch);
  // One launch's fixed cost is a fact, not a bound: nothing can merge it away.
  EXPECT_EQ(diagnose_modeled(modeled({launch(1000, {500, 200, 0, 100, 50}, 990)})).bound,
            Bound::Mte2);
  EXPECT_EQ(diagnose_modeled(modeled({launch(100000, {70000, 0, 0, 0, 0}, 50000)})).bound,
            Bound::Imbalance);
  EXPECT_EQ(diagnose_modeled(modeled({launch(100000, {5000, 1000, 0, 5000, 90000}, 99000)})).bound,
            Bound::Scalar);
}

TEST(Diagnose, NoPipeFiguresIsSaidNotGuessed) {
  json m = modeled({{{"kernel", "k"}, {"block_dim", 1}, {"cycles", 10.0}}});
  Diagnosis d = diagnose_modeled(m);
  EXPECT_EQ(d.bound, Bound::Unknown);
  ASSERT_EQ(d.facts.size(), 1u);
}

TEST(Diagnose, TheRooflineNamesTheResourceUsedMost) {
  DiagnoseInputs in;
  in.peaks.gbps = in.peaks.l3_gbps = in.peaks.l2_gbps = in.peaks.l1_gbps = 10;
  in.peaks.gflops = 100;
  in.bytes = 80'000'000;  // 80 MB in 10 ms: 8 GB/s = 80% of bandwidth
  in.flops = 10'000'000;  // 1 GFLOP/s = 1% of compute
  in.median_ms = 10;
  Diagnosis mem = diagnose(in);
  EXPECT_EQ(mem.bound, Bound::Memory);
  EXPECT_NE(render_diagnosis(mem).find("counters unavailable"), std::string::npos);
  in.flops = 800'000'000;  // 80 GFLOP/s = 80%; bytes down to 10%
  in.bytes = 10'000'000;
  EXPECT_EQ(diagnose(in).bound, Bound::Compute);
}

TEST(Diagnose, PtxasNotesGiveRegistersOccupancyAndSpills) {
  DiagnoseInputs in;
  in.peaks.gbps = 3000;
  in.peaks.gflops = 50000;
  in.device_peaks = true;
  in.bytes = 1 << 20;
  in.median_ms = 0.01;
  in.compile_notes =
      "relu(float const*, float*, long) [sm_90]: 128 registers, 1024 B smem, 0 B stack, "
      "SPILLS 8 B stores / 8 B loads (too many registers: smaller tiles or fewer live values)\n";
  Diagnosis d = diagnose(in);
  std::string text = render_diagnosis(d);
  EXPECT_NE(text.find("128 registers (occupancy at most 25% by registers)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("spills to local memory"), std::string::npos) << text;
  EXPECT_EQ(text.find("counters unavailable"), std::string::npos) << "a GPU is not the jail's CPU";
}

TEST(Diagnose, RoundTripsThroughTheVerdictJson) {
  Verdict v;
  v.feasible = true;
  v.diagnosis = diagnose_modeled(modeled({launch(100000, {80000, 30000, 0, 20000, 500}, 99000)}));
  Verdict back = verdict_from_json(to_json(v));
  EXPECT_EQ(back.diagnosis.bound, Bound::Mte2);
  EXPECT_EQ(back.diagnosis.facts, v.diagnosis.facts);
  EXPECT_EQ(bound_from("serialised"), Bound::Serialised);
  EXPECT_FALSE(bound_from("fast").has_value());
  EXPECT_EQ(verdict_from_json(json{{"diagnosis", {{"bound", "nonsense"}}}}).diagnosis.bound,
            Bound::Unknown);
}

// Real kernels through the verifier and the emulator.
class DiagnoseAscendc : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ws_ = new Workspace(fs::path(EVK_BINARY_DIR) / "verify-test-ws");
    OracleOptions oo;
    oo.max_elements = 65536;
    oo.timing_runs = 3;
    verifier_ = new Verifier(*ws_, oo);
    suite_ = new Suite(load_suite(*ws_, "builtin:level1", oo.max_elements));
  }
  static void TearDownTestSuite() {
    delete suite_;
    delete verifier_;
    delete ws_;
  }
  void SetUp() override {
    if (auto why = make_backend("ascendc")->device_unavailable()) GTEST_SKIP() << *why;
  }
  static std::string solution(const std::string& name) {
    return read_file(data_root() / "tests" / "corpus" / "ascendc" / "solutions" / (name + ".cpp"));
  }
  static std::string with(std::string s, const std::string& from, const std::string& to) {
    size_t k = s.find(from);
    EXPECT_NE(k, std::string::npos) << from;
    if (k != std::string::npos) s.replace(k, from.size(), to);
    return s;
  }
  static Verdict verify(const std::string& src, const std::string& task) {
    VerifyOptions o;
    o.backend = "ascendc";
    o.use_cache = false;
    o.seeds = 2;
    Verdict v = verifier_->verify(find_task(*suite_, task), src, o);
    EXPECT_TRUE(v.feasible) << v.category << ": " << v.feedback;
    return v;
  }
  static Workspace* ws_;
  static Verifier* verifier_;
  static Suite* suite_;
};
Workspace* DiagnoseAscendc::ws_ = nullptr;
Verifier* DiagnoseAscendc::verifier_ = nullptr;
Suite* DiagnoseAscendc::suite_ = nullptr;

TEST_F(DiagnoseAscendc, AScalarLoopIsScalarBound) {
  std::string scalar =
      with(solution("relu"), "    Relu(y, x, static_cast<int32_t>((n + 7) / 8 * 8));",
           "    for (uint32_t i = 0; i < n; ++i) {\n"
           "      float v = x.GetValue(i);\n"
           "      y.SetValue(i, v > 0.0f || v != v ? v : 0.0f);\n"
           "    }");
  Verdict v = verify(scalar, "relu");
  EXPECT_EQ(v.diagnosis.bound, Bound::Scalar) << render_diagnosis(v.diagnosis);
  EXPECT_NE(v.feedback.find("Diagnosis, bound: scalar (cost model)"), std::string::npos)
      << v.feedback;
}

TEST_F(DiagnoseAscendc, OneBufferSerialisesTwoBuffersDoNot) {
  std::string tiles = with(solution("sigmoid"), "t.tile = t.perCore < 8192 ? t.perCore : 8192;",
                           "t.tile = t.perCore < 1024 ? t.perCore : 1024;");
  Verdict two = verify(tiles, "sigmoid");
  Verdict one =
      verify(with(tiles, "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;"),
             "sigmoid");
  std::printf("one buffer:\n%stwo buffers:\n%s", render_diagnosis(one.diagnosis).c_str(),
              render_diagnosis(two.diagnosis).c_str());
  EXPECT_EQ(one.diagnosis.bound, Bound::Serialised);
  EXPECT_NE(two.diagnosis.bound, Bound::Serialised);
  EXPECT_GT(one.diagnosis.figures["single_buffered"].get<int>(), 0);
  EXPECT_EQ(two.diagnosis.figures["single_buffered"].get<int>(), 0);
}

TEST_F(DiagnoseAscendc, OneBlockSaysHowFewCoresRun) {
  Verdict v =
      verify(with(solution("relu"), "uint32_t blocks = 24;", "uint32_t blocks = 1;"), "relu");
  EXPECT_NE(
      render_diagnosis(v.diagnosis).find(fmt::format("blockDim 1 of {} AI Cores", npu::kCores)),
      std::string::npos)
      << render_diagnosis(v.diagnosis);
}

}  // namespace
}  // namespace evk
