// The Ascend C eager baseline's reference library (evk-ascendc-eager) and the eager model that
// reads it: the library's kernels compute the right values, cost-only mode charges exactly the
// cycles the full run charges, an operator without a library kernel falls back to its roofline
// and says so, and the per-operator cache answers without running the program again.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/ascendc/eager_model.h"
#include "backends/ascendc/npu_constants.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/temp_dir.h"

namespace evk {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

fs::path eager_exe() {
  return runner_dir() / "evk-ascendc-eager";
}

json run_library(const json& ops, bool numerics) {
  ProcessOptions po;
  po.stdin_data = json{{"numerics", numerics}, {"ops", ops}}.dump();
  ProcessResult pr = run_process({eager_exe().string()}, po);
  EXPECT_TRUE(pr.ok()) << pr.describe() << ": " << pr.err;
  return json::parse(pr.out).at("ops");
}

// The library's input i, element j (eager_main.cpp).
double in(int i, int j) {
  return std::sin(0.37 * j + i);
}

const json kOps = json::parse(R"js([
  {"op": "relu", "in": [[300, 70]], "out": [300, 70]},
  {"op": "gelu", "in": [[32, 256]], "out": [32, 256]},
  {"op": "add", "in": [[64, 256], [256]], "out": [64, 256]},
  {"op": "mul", "in": [[1, 256, 128], [1, 256, 1]], "out": [1, 256, 128]},
  {"op": "mul", "in": [[4096]], "out": [4096], "scalars": [1.5]},
  {"op": "mean", "in": [[4, 96, 40]], "out": [4, 40]},
  {"op": "sum", "in": [[96, 1000]], "out": [96]},
  {"op": "argmax", "in": [[64, 300]], "out": [64]},
  {"op": "softmax", "in": [[64, 256]], "out": [64, 256]},
  {"op": "layernorm", "in": [[32, 256], [256], [256]], "out": [32, 256]},
  {"op": "linear", "in": [[32, 128], [256, 128], [256]], "out": [32, 256]},
  {"op": "bmm", "in": [[4, 64, 128], [4, 128, 64]], "out": [4, 64, 64]}])js");

class AscendcEager : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(eager_exe())) GTEST_SKIP() << "evk-ascendc-eager is not built";
  }
};

TEST_F(AscendcEager, CostOnlyModeChargesTheSameCycles) {
  json full = run_library(kOps, true), cost = run_library(kOps, false);
  ASSERT_EQ(full.size(), kOps.size());
  for (size_t i = 0; i < kOps.size(); ++i) {
    ASSERT_FALSE(full[i].at("kernel").is_null()) << kOps[i].dump() << ": " << full[i].dump();
    EXPECT_GT(full[i].at("cycles").get<double>(), 0) << kOps[i].dump();
    EXPECT_EQ(full[i].at("cycles"), cost[i].at("cycles")) << kOps[i].dump();
    EXPECT_FALSE(cost[i].contains("sum"));  // no values were computed
  }
}

TEST_F(AscendcEager, TheLibraryKernelsComputeTheOperators) {
  json r = run_library(kOps, true);
  auto head = [&](size_t k, size_t i) { return r[k].at("head")[i].get<double>(); };
  // relu over 21000 elements (a tail that is not whole 32-byte blocks)
  for (int j = 0; j < 16; ++j) EXPECT_NEAR(head(0, j), std::max(0.0, in(0, j)), 1e-6);
  // gelu (erf form)
  for (int j = 0; j < 16; ++j)
    EXPECT_NEAR(head(1, j), 0.5 * in(0, j) * (1 + std::erf(in(0, j) / std::sqrt(2.0))), 1e-3);
  // a row broadcast, one value per row, a scalar
  for (int j = 0; j < 16; ++j) EXPECT_NEAR(head(2, j), in(0, j) + in(1, j), 1e-5);
  for (int j = 0; j < 16; ++j) EXPECT_NEAR(head(3, j), in(0, j) * in(1, 0), 1e-5);
  for (int j = 0; j < 16; ++j) EXPECT_NEAR(head(4, j), 1.5 * in(0, j), 1e-5);
  // mean over the middle dimension of [4, 96, 40]
  for (int c = 0; c < 16; ++c) {
    double s = 0;
    for (int k = 0; k < 96; ++k) s += in(0, k * 40 + c);
    EXPECT_NEAR(head(5, c), s / 96, 1e-4);
  }
  // sum of each row of 1000 (more than one chunk is not needed; a tail is)
  for (int row = 0; row < 4; ++row) {
    double s = 0;
    for (int k = 0; k < 1000; ++k) s += in(0, row * 1000 + k);
    EXPECT_NEAR(head(6, row), s, 1e-3);
  }
  // argmax of each row of 300
  for (int row = 0; row < 4; ++row) {
    int best = 0;
    for (int k = 1; k < 300; ++k)
      if (in(0, row * 300 + k) > in(0, row * 300 + best)) best = k;
    EXPECT_EQ(head(7, row), best);
  }
  EXPECT_NEAR(r[8].at("sum").get<double>(), 64, 1e-3);  // softmax rows sum to 1
  // layer norm of row 0 with weight in(1, .) and bias in(2, .)
  double mean = 0, var = 0;
  for (int k = 0; k < 256; ++k) mean += in(0, k) / 256;
  for (int k = 0; k < 256; ++k) var += (in(0, k) - mean) * (in(0, k) - mean) / 256;
  for (int j = 0; j < 16; ++j)
    EXPECT_NEAR(head(9, j), (in(0, j) - mean) / std::sqrt(var + 1e-5) * in(1, j) + in(2, j), 1e-4);
  // linear: x [32, 128], weight [256, 128], bias [256]
  for (int j = 0; j < 16; ++j) {
    double s = in(2, j);
    for (int k = 0; k < 128; ++k) s += in(0, k) * in(1, j * 128 + k);
    EXPECT_NEAR(head(10, j), s, 1e-3);
  }
}

TEST_F(AscendcEager, AnOperatorWithoutALibraryKernelFallsBackToItsRooflineAndSaysSo) {
  Reference r;
  r.meta = json::parse(R"js({"fx_ops": [
    {"name": "x", "kind": "placeholder", "op": "placeholder", "shape": [1024, 1024]},
    {"name": "relu", "kind": "call_function", "op": "relu", "shape": [1024, 1024], "args": "(x,)", "flops": 1048576},
    {"name": "cummax", "kind": "call_function", "op": "cummax", "shape": [1024, 1024], "args": "(relu, 1)", "flops": 1048576},
    {"name": "view", "kind": "call_method", "op": "view", "shape": [1048576], "args": "(cummax, -1)", "flops": 0},
    {"name": "output", "kind": "output", "op": "output", "shape": null, "args": "(view,)"}]})js");
  EagerCost c = modeled_eager(r, eager_exe());
  EXPECT_EQ(c.library_ops, 1);
  ASSERT_EQ(c.fallback.size(), 1u);
  EXPECT_EQ(c.basis(), "library kernels; roofline for cummax");
  // The fallback: 8 MiB at the library's share of the HBM bandwidth and a launch; the view is
  // free.
  const double launch_ms = npu::kLaunchUs * 1e-3, hbm = npu::kHbmGBps * 1e9;
  double roofline = 8.0 * 1024 * 1024 / (npu::kEagerHbmEfficiency * hbm) * 1e3 + launch_ms;
  json relu = run_library(
      json::array({{{"op", "relu"}, {"in", {{1024, 1024}}}, {"out", {1024, 1024}}}}), false);
  EXPECT_NEAR(c.ms, roofline + relu[0].at("ms").get<double>(), 1e-9);
  // A relu the library runs is never faster than its roofline plus its launch.
  EXPECT_GE(relu[0].at("ms").get<double>(), 8.0 * 1024 * 1024 / hbm * 1e3 + launch_ms);
}

TEST_F(AscendcEager, WithoutTheProgramEveryOperatorFallsBackWithTheReason) {
  Reference r;
  r.meta = json::parse(R"js({"fx_ops": [
    {"name": "x", "kind": "placeholder", "op": "placeholder", "shape": [64]},
    {"name": "relu", "kind": "call_function", "op": "relu", "shape": [64], "args": "(x,)"}]})js");
  EagerCost c = modeled_eager(r, "/nonexistent/evk-ascendc-eager");
  EXPECT_EQ(c.basis(), "roofline");
  ASSERT_EQ(c.fallback.size(), 1u);
  EXPECT_NE(c.fallback[0].find("evk-ascendc-eager is not built"), std::string::npos)
      << c.fallback[0];
}

TEST_F(AscendcEager, ResultsAreKeptBesideTheReference) {
  TempDir dir("evk-eager-cache");
  Reference r;
  r.meta_path = dir.path() / "meta.json";
  r.meta = json::parse(R"js({"fx_ops": [
    {"name": "x", "kind": "placeholder", "op": "placeholder", "shape": [123, 456]},
    {"name": "tanh", "kind": "call_function", "op": "tanh", "shape": [123, 456], "args": "(x,)"}]})js");
  EagerCost first = modeled_eager(r, eager_exe());
  EXPECT_EQ(first.basis(), "library kernels");
  ASSERT_TRUE(fs::exists(dir.path() / "ascendc_eager.json"));
  json cached = json::parse(read_file(dir.path() / "ascendc_eager.json"));
  ASSERT_EQ(cached.size(), 1u);
  EXPECT_EQ(cached.begin().value().at("ms").get<double>(), first.ms);
  EXPECT_EQ(cached.begin().value().at("kernel"), "eager_map(tanh)");
  EXPECT_EQ(modeled_eager(r, eager_exe()).ms, first.ms);
}

TEST(AscendcEagerRequest, AnFxOperatorBecomesTheLibrarysRequest) {
  Reference r;
  r.abi = {{"in.0", "input", DType::F32, {32, 128}, false},
           {"param.fc.weight", "param", DType::F32, {256, 128}, false},
           {"param.fc.bias", "param", DType::F32, {256}, false}};
  std::map<std::string, json> shapes = {{"x", {32, 128}}, {"fc", {32, 256}}};
  json lin = library_request(json::parse(R"js({"name": "fc", "kind": "call_module", "op": "Linear",
      "target": "fc", "shape": [32, 256], "args": "(x,)"})js"),
                             shapes, r);
  EXPECT_EQ(lin.at("op"), "linear");
  EXPECT_EQ(lin.at("in"), json::parse("[[32, 128], [256, 128], [256]]"));
  json clamp =
      library_request(json::parse(R"js({"name": "c", "kind": "call_function", "op": "clamp",
      "shape": [32, 256], "args": "(fc, -1.5, 1.5)", "kwargs": "{}"})js"),
                      shapes, r);
  EXPECT_EQ(clamp.at("in"), json::parse("[[32, 256]]"));
  EXPECT_EQ(clamp.at("scalars"), json::parse("[-1.5, 1.5]"));
  EXPECT_TRUE(library_request(json::parse(R"js({"name": "v", "kind": "call_method", "op": "view",
      "shape": [8192], "args": "(fc, -1)"})js"),
                              shapes, r)
                  .is_null());
}

}  // namespace
}  // namespace evk
