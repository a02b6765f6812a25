#include "report/export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"
#include "fixture.h"

namespace evk {
namespace {

using nlohmann::json;
using testing::TempDir;

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < s.size()) {
    size_t e = s.find('\n', p);
    out.push_back(s.substr(p, e - p));
    if (e == std::string::npos) break;
    p = e + 1;
  }
  return out;
}

struct Fixture : ::testing::Test {
  TempDir tmp;
  std::unique_ptr<Workspace> ws;
  int64_t id = 0;
  void SetUp() override {
    ws = std::make_unique<Workspace>(tmp.path() / "ws");
    id = testing::build_run(*ws).id;
  }
  RunData run() {
    RunStore store(*ws);
    return load_run(store, id);
  }
};

TEST_F(Fixture, ShowPrintsTheBestKernelItsGatesAndSpeedUps) {
  bool found = false;
  std::string s = format_show(run(), "relu", &found);
  EXPECT_TRUE(found);
  EXPECT_NE(s.find("SIMULATED"), std::string::npos);
  EXPECT_NE(s.find("best kernel: attempt 5 of 5 (refine), first feasible at attempt 2"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("pass correctness"), std::string::npos);
  EXPECT_NE(s.find("speed-up over eager 8.00x"), std::string::npos) << s;  // 4 / 0.5
  EXPECT_NE(s.find("over first draft 4.00x"), std::string::npos);          // 2 / 0.5
  EXPECT_NE(s.find("eager baseline: PyTorch 1.13.0a0 eager, OpenBLAS 0.3.21 (Zen kernels), 1 "
                   "thread, ATen AVX2; GEMM 80.0 GFLOP/s, 80% of the FMA peak"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("// relu v4 simd best"), std::string::npos);
}

TEST_F(Fixture, ShowOfAnUnsolvedTaskGivesTheLastFailure) {
  bool found = true;
  std::string s = format_show(run(), "softmax_big", &found);
  EXPECT_FALSE(found);
  EXPECT_NE(s.find("no feasible kernel in 4 attempt(s); last attempt 4 (draft) failed: "
                   "runtime_crash"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("killed by SIGSEGV"), std::string::npos);
}

TEST_F(Fixture, ShowOfAnUnknownTaskNamesTheRunsTasks) {
  try {
    format_show(run(), "gelu");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("relu, matmul_square, softmax_big"), std::string::npos);
  }
}

TEST_F(Fixture, ExportWritesKernelsManifestAndMetrics) {
  std::filesystem::path dir = tmp.path() / "out" / "kernels";
  EXPECT_EQ(export_run(run(), dir), 2);
  EXPECT_EQ(read_file(dir / "relu.cpp"), "// relu v4 simd best\n");
  EXPECT_EQ(read_file(dir / "matmul_square.cpp"), "// matmul v2 blocked\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "softmax_big.cpp"));

  json m = json::parse(read_file(dir / "manifest.json"));
  EXPECT_EQ(m["run"]["model"], "sim");
  EXPECT_EQ(m["run"]["seed"], 7);
  EXPECT_EQ(m["run"]["simulated"], true);
  EXPECT_EQ(m["run"]["baseline"]["blas_name"], "OpenBLAS 0.3.21 (Zen kernels)");
  EXPECT_EQ(m["run"]["slow_baseline"], false);
  ASSERT_EQ(m["tasks"].size(), 3u);
  const json& relu = m["tasks"][0];
  EXPECT_EQ(relu["task"], "relu");
  EXPECT_EQ(relu["file"], "relu.cpp");
  EXPECT_DOUBLE_EQ(relu["latency_ms"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(relu["speedup_over_eager"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(relu["speedup_over_first_draft"].get<double>(), 4.0);
  EXPECT_EQ(relu["verdict"]["feasible"], true);
  EXPECT_EQ(m["tasks"][1]["fitted"], true);
  EXPECT_FALSE(m["tasks"][2].contains("file"));

  json j = json::parse(read_file(dir / "metrics.json"));
  EXPECT_EQ(j["overall"]["solved"], 2);
  EXPECT_EQ(j["levels"]["2"]["solved"], 0);
  EXPECT_EQ(j["run"]["baseline"]["cpu_capability"], "AVX2");

  auto csv = lines(read_file(dir / "metrics.csv"));
  ASSERT_EQ(csv.size(), 4u);  // header, level1, level2, overall
  EXPECT_EQ(csv[0].rfind("run,method,model,simulated,scope,tasks,solved", 0), 0u);
  EXPECT_EQ(csv[3].rfind("1,evokernel,sim,1,overall,3,2,13,", 0), 0u) << csv[3];
  const std::string eager = ",1.13.0a0,OpenBLAS 0.3.21 (Zen kernels),1,AVX2,0";
  EXPECT_EQ(csv[3].substr(csv[3].size() - eager.size()), eager) << csv[3];
  size_t cols = std::count(csv[0].begin(), csv[0].end(), ',');
  for (const auto& l : csv) EXPECT_EQ(static_cast<size_t>(std::count(l.begin(), l.end(), ',')), cols);

  auto tasks = lines(read_file(dir / "tasks.csv"));
  ASSERT_EQ(tasks.size(), 4u);
  EXPECT_EQ(tasks[1], "relu,1,0,1,5,2,4,2,0.5,4,8,0.4" + eager);
}

TEST(KernelFileName, KeepsSafeCharactersOnly) {
  EXPECT_EQ(kernel_file_name("relu", "cpu"), "relu.cpp");
  EXPECT_EQ(kernel_file_name("../etc/passwd", "cpu"), "_.._etc_passwd.cpp");
  EXPECT_EQ(kernel_file_name("a b/c", "opencl"), "a_b_c.cpp");
  EXPECT_EQ(kernel_file_name("relu", "cuda"), "relu.cu");
}

// The commands as a user types them, against the real binary.
TEST_F(Fixture, CommandLine) {
  auto cli = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {EVK_CLI_PATH, "--workspace", (tmp.path() / "ws").string()});
    ProcessOptions o;
    o.cwd = tmp.path().string();
    o.timeout_s = 120;
    return run_process(args, o);
  };
  ProcessResult rep = cli({"report", "--out", "r.html"});
  ASSERT_TRUE(rep.ok()) << rep.err;
  EXPECT_NE(rep.out.find("wrote r.html (run 1, SIMULATED)"), std::string::npos) << rep.out;
  EXPECT_NE(read_file(tmp.path() / "r.html").find("<table class=\"summary\">"), std::string::npos);

  ProcessResult show = cli({"show", "relu"});
  EXPECT_TRUE(show.ok()) << show.err;
  EXPECT_NE(show.out.find("// relu v4 simd best"), std::string::npos);
  ProcessResult show_run = cli({"show", "1", "softmax_big"});
  EXPECT_EQ(show_run.exit_code, 1);  // no feasible kernel
  ProcessResult unknown = cli({"show", "1", "gelu"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("has no task 'gelu'"), std::string::npos) << unknown.err;
  ProcessResult bad_run = cli({"report", "nine"});
  EXPECT_EQ(bad_run.exit_code, 2);

  ProcessResult exp = cli({"export", "1", "outdir"});
  ASSERT_TRUE(exp.ok()) << exp.err;
  EXPECT_NE(exp.out.find("wrote 2 kernel(s) of 3 task(s) of run 1 (SIMULATED)"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "outdir" / "manifest.json"));
}

}  // namespace
}  // namespace evk
