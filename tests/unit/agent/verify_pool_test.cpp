// `evokernel verify --also ... --jobs N`: a batch of candidates for one task verified by the
// pool (verify_all) at once, each through its own runner session. Each verdict must be its own
// candidate's, in the order given, whatever order the pool finished them in. Also run under
// ThreadSanitizer (`make test-tsan`): the pool, the runner sessions' threads and the signal
// watcher share one process here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

constexpr const char* kWrongRelu = R"(#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i];  // the identity, not relu
  return 0;
}
)";

TEST(CliVerify, APoolOfJobsAnswersEachCandidateInTheOrderGiven) {
  fs::path root = fs::temp_directory_path() / ("evk-verify-pool-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  fs::path wrong = root / "wrong_relu.cpp";
  std::ofstream(wrong) << kWrongRelu;
  std::string good = (data_root() / "tests/corpus/cpu/solutions/relu.cpp").string();

  ProcessOptions o;
  o.env = {{"EVK_VERIFY_SEEDS", "2"},
           {"EVK_VERIFY_TIMING_BUDGET_MS", "100"},
           {"EVK_ORACLE_TIMING_RUNS", "3"}};
  o.timeout_s = 600;
  auto r =
      run_process({EVK_CLI_PATH, "--workspace", (root / "ws").string(), "verify", "builtin:level1",
                   "relu", "--source", wrong.string(), "--also", good, "--also", wrong.string(),
                   "--also", good, "--jobs", "3", "--json", "--no-cache"},
                  o);
  fs::remove_all(root);
  EXPECT_EQ(r.exit_code, 1) << r.describe() << "\n" << r.err;  // not all feasible
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_array()) << r.out << r.err;
  ASSERT_EQ(j.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    bool is_good = i % 2 == 1;
    EXPECT_EQ(j[i].at("source"), is_good ? good : wrong.string());
    EXPECT_EQ(j[i].at("feasible"), is_good) << j[i].dump();
    if (!is_good) {
      EXPECT_EQ(j[i].at("category"), "mismatch") << j[i].dump();
    }
  }
}

}  // namespace
}  // namespace evk
