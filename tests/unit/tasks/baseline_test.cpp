// The eager baseline (tasks/baseline.h): what identifies it and keys the references, the
// health floor and the line a run prints; then, against the real oracle, Debian's reference
// BLAS and OpenBLAS chosen per process with LD_LIBRARY_PATH (as a changed alternative would):
// the probe reads the library from the process and is cached, a reference timed under one BLAS
// is never reused under the other, and a reference whose process ran another BLAS than the
// cached probe said is refused.
#include "tasks/baseline.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/hash.h"
#include "core/paths.h"
#include "core/temp_dir.h"
#include "core/workspace.h"
#include "verify/peaks.h"

namespace evk {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kReference = "/usr/lib/x86_64-linux-gnu/blas";
const fs::path kOpenBlas = "/usr/lib/x86_64-linux-gnu/openblas-pthread";

EagerBaseline sample() {
  EagerBaseline b;
  b.python = "/usr/bin/python3";
  b.torch_version = "1.13.0a0";
  b.blas_library = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3";
  b.blas_name = "OpenBLAS 0.3.21 (Zen kernels)";
  b.cpu_capability = "AVX2";
  b.threads = 1;
  b.blas_threads = 1;
  b.cpus = {1};
  b.gemm_n = 512;
  b.gemm_gflops = 86.0;
  return b;
}

TEST(EagerBaselineKey, HoldsTheInterpreterTorchBlasAndCapabilityButNotTheRate) {
  const EagerBaseline a = sample();
  EagerBaseline same = a;
  same.gemm_gflops = 3.0;
  same.cpus = {0};
  EXPECT_EQ(a.key(), same.key());
  auto differs = [&](auto change) {
    EagerBaseline b = a;
    change(b);
    return b.key() != a.key();
  };
  EXPECT_TRUE(
      differs([](EagerBaseline& b) { b.blas_library = "/usr/lib/x/blas/libblas.so.3.11.0"; }));
  EXPECT_TRUE(differs([](EagerBaseline& b) { b.blas_name = "OpenBLAS 0.3.26 (Zen kernels)"; }));
  EXPECT_TRUE(differs([](EagerBaseline& b) { b.torch_version = "2.1.0"; }));
  EXPECT_TRUE(differs([](EagerBaseline& b) { b.cpu_capability = "AVX512"; }));
  EXPECT_TRUE(differs([](EagerBaseline& b) { b.python = "/opt/venv/bin/python"; }));
  EXPECT_EQ(EagerBaseline::from_json(a.to_json()).key(), a.key());
}

TEST(BaselineHealth, BelowTheFloorNamesTheLibraryTheRateAndTheFix) {
  EagerBaseline b = sample();
  b.blas_name = "reference BLAS (netlib)";
  b.blas_library = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0";
  b.gemm_gflops = 3.3;
  BaselineHealth h = baseline_health(b, 100.0);
  EXPECT_FALSE(h.ok);
  EXPECT_NEAR(h.fraction, 0.033, 1e-9);
  EXPECT_EQ(h.problem.find('\n'), std::string::npos) << "one line";
  for (const char* s :
       {"reference BLAS (netlib)", "libblas.so.3.11.0", "3.3 GFLOP/s",
        "3.3% of this machine's FMA peak", "libopenblas0-pthread", "--allow-slow-baseline"})
    EXPECT_NE(h.problem.find(s), std::string::npos) << s << " in: " << h.problem;
  b.gemm_gflops = 10.0;  // exactly the floor passes
  EXPECT_TRUE(baseline_health(b, 100.0).ok);
  EXPECT_TRUE(baseline_health(b, 0).ok) << "an unknown peak refuses nothing";
}

TEST(BaselineRecord, TheLineSaysSlowOnlyWhereTheRunWasLetThrough) {
  EagerBaseline b = sample();
  json healthy = baseline_record(b, baseline_health(b, 160.0), 160.0, false, true);
  EXPECT_FALSE(baseline_slow(healthy));
  EXPECT_FALSE(healthy["allowed_slow"].get<bool>()) << "nothing was let through";
  EXPECT_EQ(baseline_line(healthy),
            "eager baseline: PyTorch 1.13.0a0 eager, OpenBLAS 0.3.21 (Zen kernels), 1 thread, "
            "ATen AVX2; GEMM 86.0 GFLOP/s, 54% of the FMA peak");
  b.gemm_gflops = 2.0;
  json slow = baseline_record(b, baseline_health(b, 160.0), 160.0, false, true);
  EXPECT_TRUE(baseline_slow(slow));
  EXPECT_EQ(
      baseline_line(slow).rfind("eager baseline: SLOW (let through by --allow-slow-baseline)", 0),
      0u)
      << baseline_line(slow);
  EXPECT_NE(baseline_line(slow).find("inflated"), std::string::npos);
  EXPECT_NE(baseline_line(json()).find("not recorded"), std::string::npos);
}

// The FMA peak the floor is against: figures stored by the loop that spilled on AVX2 (2.3
// GFLOP/s where OpenBLAS reached 87) are measured again; current ones are kept.
TEST(FmaPeak, FiguresOfTheSpillingLoopAreMeasuredAgainAndCurrentOnesKept) {
  TempDir tmp("evk-fma-peak-");
  Workspace ws(tmp.path() / "ws");
  MachinePeaks old;
  old.gflops = 2.3;
  old.gbps = old.l3_gbps = old.l2_gbps = old.l1_gbps = 1;
  old.threads = 1;
  old.measurements = 1;
  store_peaks(ws, old);
  EXPECT_EQ(machine_peaks(ws, 1).measurements, 1) << "a current figure is read, not measured";
  auto row = ws.db().prepare("SELECT peaks FROM verify_peaks");
  ASSERT_TRUE(row.step());
  json j = json::parse(row.text(0));
  j.erase("fma_loop");  // as the first loop stored it
  ws.db().prepare("UPDATE verify_peaks SET peaks = ?").bind(1, j.dump()).run();
  MachinePeaks again = machine_peaks(ws, 1);
  EXPECT_EQ(again.measurements, 2) << "measured again and merged";
  EXPECT_GE(again.gflops, 2.3);
}

// A real oracle under both of Debian's BLAS libraries, chosen by LD_LIBRARY_PATH.
class RealOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& d : {kReference, kOpenBlas})
      if (!fs::exists(d / "libblas.so.3"))
        GTEST_SKIP() << d << "/libblas.so.3 is absent: scripts/setup installs OpenBLAS";
    const char* old = std::getenv("LD_LIBRARY_PATH");
    if (old) saved_ = old;
    tmp_.emplace("evk-baseline-");
    ws_.emplace(tmp_->path() / "ws");
    // A wrapper that counts the oracle processes, and runs the reference BLAS while `flag`
    // exists, whatever the environment says (a change the fingerprint cannot see).
    python_ = tmp_->path() / "python3";
    write_file_atomic(python_, "#!/bin/sh\necho x >> " + (tmp_->path() / "count").string() +
                                   "\nif [ -f " + flag().string() +
                                   " ]; then export LD_LIBRARY_PATH=" + kReference.string() +
                                   "; fi\nexec /usr/bin/python3 \"$@\"\n");
    fs::permissions(python_, fs::perms::owner_all);
    fs::path src = data_root() / "tests/data/baseline_suite/matmul_small.py";
    task_.id = "matmul_small";
    task_.path = src;
    task_.source = read_file(src);
    task_.content_hash = sha256_hex(task_.source);
    task_.ok = true;
    opt_.python = python_.string();
    opt_.timing_runs = 3;
    opt_.timeout_s = 120;
  }
  void TearDown() override {
    if (saved_)
      ::setenv("LD_LIBRARY_PATH", saved_->c_str(), 1);
    else
      ::unsetenv("LD_LIBRARY_PATH");
  }
  void use(const fs::path& blas) { ::setenv("LD_LIBRARY_PATH", blas.c_str(), 1); }
  fs::path flag() const { return tmp_->path() / "flag"; }
  int processes() const {
    if (!fs::exists(tmp_->path() / "count")) return 0;
    std::string s = read_file(tmp_->path() / "count");
    return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
  }

  std::optional<std::string> saved_;
  std::optional<TempDir> tmp_;
  std::optional<Workspace> ws_;
  fs::path python_;
  TaskInfo task_;
  OracleOptions opt_;
};

TEST_F(RealOracle, TheProbeReadsTheBlasFromTheProcessAndIsCachedUntilTheSystemChanges) {
  use(kOpenBlas);
  EagerBaseline open = eager_baseline(*ws_, opt_);
  EXPECT_EQ(processes(), 1);
  EXPECT_EQ(open.blas_name.rfind("OpenBLAS ", 0), 0u) << open.blas_name;
  EXPECT_EQ(open.blas_library.rfind(kOpenBlas.string() + "/", 0), 0u) << open.blas_library;
  EXPECT_EQ(open.threads, 1);
  EXPECT_EQ(open.blas_threads, 1);
  EXPECT_EQ(open.python, "/usr/bin/python3");  // the interpreter the wrapper ran
  EXPECT_GT(open.gemm_gflops, 0);
  EXPECT_EQ(eager_baseline(*ws_, opt_).key(), open.key());
  EXPECT_EQ(processes(), 1) << "cached";
  EXPECT_FALSE(fs::is_empty(ws_->cache_dir() / "baseline")) << "kept in the workspace";

  use(kReference);  // the loader's environment changed: probed again
  EagerBaseline ref = eager_baseline(*ws_, opt_);
  EXPECT_EQ(processes(), 2);
  EXPECT_EQ(ref.blas_name, "reference BLAS (netlib)");
  EXPECT_NE(ref.key(), open.key());
  // By CPU time, which a busy machine does not inflate; measured 18-30x apart.
  EXPECT_GT(open.gemm_gflops, 4 * ref.gemm_gflops);
}

TEST_F(RealOracle, AReferenceTimedUnderOneBlasIsNeverReusedUnderAnother) {
  use(kOpenBlas);
  Reference a = oracle_reference(*ws_, task_, 0, opt_);
  use(kReference);
  Reference b = oracle_reference(*ws_, task_, 0, opt_);
  EXPECT_NE(a.meta_path, b.meta_path);
  EXPECT_EQ(a.meta.at("baseline").at("blas_name").get<std::string>().rfind("OpenBLAS", 0), 0u);
  EXPECT_EQ(b.meta.at("baseline").at("blas_name"), "reference BLAS (netlib)");
  EXPECT_EQ(a.meta.at("eager").at("threads"), 1);
  use(kOpenBlas);
  int before = processes();
  Reference again = oracle_reference(*ws_, task_, 0, opt_);
  EXPECT_EQ(again.meta_path, a.meta_path);
  EXPECT_EQ(processes(), before) << "reused, nothing probed or computed";
}

TEST_F(RealOracle, AReferenceWhoseProcessRanAnotherBlasThanTheProbeSaidIsRefused) {
  use(kOpenBlas);
  EagerBaseline probed = eager_baseline(*ws_, opt_);
  write_file_atomic(flag(), "");  // now the wrapper runs the reference BLAS
  try {
    oracle_reference(*ws_, task_, 0, opt_);
    FAIL() << "a reference under another BLAS was accepted";
  } catch (const OracleError& e) {
    EXPECT_NE(std::string(e.what()).find("the system changed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reference BLAS (netlib)"), std::string::npos);
  }
  // The probe was forgotten: the next reference probes again and is filed under the truth.
  Reference r = oracle_reference(*ws_, task_, 0, opt_);
  EXPECT_EQ(r.meta.at("baseline").at("blas_name"), "reference BLAS (netlib)");
  EXPECT_NE(eager_baseline(*ws_, opt_).key(), probed.key());
}

}  // namespace
}  // namespace evk
