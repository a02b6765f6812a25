// Through the CLI, as a user would: `doctor` names the eager baseline and fails below the
// floor, `run` refuses to start on it with one line, `--allow-slow-baseline` lets it through and
// marks the run in `results`, `show`, `export` and `report`. The floor is made to fail or pass by
// the stored FMA peak (verify/peaks.h), so the test holds on any BLAS; the real oracle probes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/paths.h"
#include "core/process.h"
#include "core/temp_dir.h"
#include "core/workspace.h"
#include "verify/peaks.h"

namespace evk {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

class BaselineCli : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_.emplace("evk-baseline-cli-");
    Workspace ws(tmp_->path() / "ws");
    MachinePeaks p;  // figures that stand for a measured machine: nothing is measured
    p.gbps = p.l3_gbps = p.l2_gbps = p.l1_gbps = 10;
    p.threads = 1;
    p.gflops_spread = p.gbps_spread = 1.0;
    p.samples = 7;
    p.measurements = 1;
    peaks_ = p;
  }
  // The FMA peak every probe's GEMM is measured against.
  void fma_peak(double gflops) {
    Workspace ws(tmp_->path() / "ws");
    peaks_.gflops = gflops;
    store_peaks(ws, peaks_);
  }
  ProcessResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), {EVK_CLI_PATH, "--workspace", (tmp_->path() / "ws").string()});
    ProcessOptions o;
    o.cwd = tmp_->path().string();
    o.env = {{"EVK_VERIFY_SEEDS", "1"},
             {"EVK_VERIFY_TIMING_BUDGET_MS", "100"},
             {"EVK_ORACLE_TIMING_RUNS", "3"}};
    o.timeout_s = 600;
    return run_process(args, o);
  }
  std::vector<std::string> run_args() const {
    return {"run",     "--suite", (data_root() / "tests/data/baseline_suite").string(),
            "--model", "sim",     "--budget",
            "1",       "--seed",  "1",
            "--quiet"};
  }
  std::optional<TempDir> tmp_;
  MachinePeaks peaks_;
};

TEST_F(BaselineCli, DoctorNamesAHealthyBaselineAndPasses) {
  fma_peak(0.001);  // any BLAS is far above 10% of it
  ProcessResult d = cli({"doctor"});
  EXPECT_EQ(d.exit_code, 0) << d.out << d.err;
  auto at = d.out.find("eager baseline");
  ASSERT_NE(at, std::string::npos) << d.out;
  std::string line = d.out.substr(d.out.rfind('\n', at) + 1);
  line = line.substr(0, line.find('\n'));
  EXPECT_EQ(line.rfind("OK", 0), 0u) << line;
  for (const char* s : {"PyTorch ", " eager, ", "1 thread", "ATen ", "libblas", "GFLOP/s",
                        "of the FMA peak", "(floor 10%)"})
    EXPECT_NE(line.find(s), std::string::npos) << s << " in: " << line;
}

TEST_F(BaselineCli, ASlowBaselineFailsDoctorRefusesARunAndMarksOneLetThrough) {
  fma_peak(1e9);  // no BLAS reaches 10% of it
  ProcessResult d = cli({"doctor"});
  EXPECT_EQ(d.exit_code, 1) << d.out << d.err;
  EXPECT_NE(d.out.find("SLOW     eager baseline"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("libopenblas0-pthread"), std::string::npos) << d.out;

  ProcessResult refused = cli(run_args());
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  for (const char* s :
       {"GEMM at", "FMA peak", "libblas", "libopenblas0-pthread", "--allow-slow-baseline"})
    EXPECT_NE(refused.err.find(s), std::string::npos) << s << " in: " << refused.err;
  EXPECT_NE(cli({"results"}).exit_code, 0) << "no run was written";

  auto args = run_args();
  args.push_back("--allow-slow-baseline");
  ProcessResult let = cli(args);
  ASSERT_TRUE(let.ok()) << let.describe() << let.out << let.err;
  ProcessResult res = cli({"results"});
  EXPECT_NE(res.out.find("eager baseline: SLOW (let through by --allow-slow-baseline)"),
            std::string::npos)
      << res.out;
  json j = json::parse(cli({"results", "--json"}).out);
  EXPECT_TRUE(j.at("slow_baseline").get<bool>());
  EXPECT_EQ(j.at("baseline").at("threads"), 1);
  EXPECT_FALSE(j.at("baseline").at("blas_library").get<std::string>().empty());

  ProcessResult exp = cli({"export", "1", "out"});
  ASSERT_TRUE(exp.ok()) << exp.err;
  EXPECT_NE(exp.out.find("SLOW"), std::string::npos) << exp.out;
  json m = json::parse(read_file(tmp_->path() / "out" / "manifest.json"));
  EXPECT_TRUE(m.at("run").at("slow_baseline").get<bool>());
  std::string tasks = read_file(tmp_->path() / "out" / "tasks.csv");
  EXPECT_NE(
      tasks.find(",eager_torch,eager_blas,eager_threads,eager_cpu_capability,slow_baseline\n"),
      std::string::npos)
      << tasks;
  std::string row = tasks.substr(tasks.find("\nmatmul_small,") + 1);
  EXPECT_EQ(row.substr(row.size() - 3), ",1\n") << row;

  ASSERT_TRUE(cli({"report", "--out", "r.html"}).ok());
  EXPECT_NE(read_file(tmp_->path() / "r.html").find("id=\"slow-baseline-1\""), std::string::npos);
  // Resumed, the run keeps being let through: it was started so.
  ProcessResult resumed = cli({"run", "--resume", "1", "--quiet"});
  EXPECT_TRUE(resumed.ok()) << resumed.out << resumed.err;
}

}  // namespace
}  // namespace evk
