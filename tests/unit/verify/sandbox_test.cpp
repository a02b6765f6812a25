// evk-runner on hand-made jobs, bypassing the static gates, so that the dynamic defences are
// exercised on their own: late writes from a detached thread, the wall-clock kill, the
// sandbox's verdict on forbidden calls, and the outputs protocol.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/backend.h"
#include "verify/runner_client.h"
#include "verify/temp_dir.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

constexpr int64_t kN = 4096;

// Writes two seeds of relu inputs and returns a job for the library in `dir`.
RunnerJob relu_job(const fs::path& dir, const fs::path& lib) {
  RunnerJob job;
  for (int s = 0; s < 2; ++s) {
    SafetensorsFile f;
    Tensor t;
    t.shape = {kN};
    t.data.resize(kN * 4);
    for (int64_t i = 0; i < kN; ++i) {
      float v = static_cast<float>((i * 7919 + s * 104729) % 2001 - 1000) / 100.0f;
      std::memcpy(t.data.data() + 4 * i, &v, 4);
    }
    f.tensors["in.0"] = t;
    fs::path p = dir / ("seed" + std::to_string(s) + ".safetensors");
    write_safetensors(p, f);
    job.seed_files.push_back(p.string());
  }
  job.library = lib.string();
  job.abi = {"in.0"};
  job.outputs = {{"out.0", DType::F32, {kN}}};
  job.outputs_path = (dir / "outputs.bin").string();
  job.timing_budget_ms = 20;
  return job;
}

fs::path build(const std::string& src, const fs::path& dir) {
  auto b = make_backend("cpu");
  CompileResult r = b->compile(src, dir, 120);
  EXPECT_TRUE(r.ok) << r.log;
  return r.artifact;
}

const char* kRelu = R"(#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = (const float*)in[0].data; float* y = (float*)out[0].data;
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] > 0 ? x[i] : 0;
  return 0;
})";

TEST(Sandbox, HonestKernelReportsRecordsAndTiming) {
  TempDir d("evk-sbx-");
  auto job = relu_job(d.path(), build(kRelu, d.path()));
  RunnerRun r = run_runner(job, {}, d.path().string());
  ASSERT_TRUE(r.process.ok()) << r.process.describe() << r.process.err;
  ASSERT_TRUE(r.report.finished);
  EXPECT_EQ(r.report.records, (std::vector<std::string>{"seed0", "seed1", "reuse", "post0", "post1"}));
  EXPECT_TRUE(r.report.input_mutated.empty());
  EXPECT_TRUE(r.report.late_write.empty());
  EXPECT_EQ(r.report.mixed_unchanged, std::optional<bool>(false));
  EXPECT_GT(r.report.trials, 0);
  EXPECT_EQ(fs::file_size(job.outputs_path), 5 * job.record_bytes());
}

TEST(Sandbox, DetachedThreadWritingAfterReturnIsSeen) {
  TempDir d("evk-sbx-");
  const char* src = R"(#include "evokernel/kernel_abi.h"
#include <thread>
#include <chrono>
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = (const float*)in[0].data; float* y = (float*)out[0].data;
  int64_t n = evk_numel(&in[0]);
  for (int64_t i = 0; i < n; ++i) y[i] = 0;
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0;
  }).detach();
  return 0;
})";
  auto job = relu_job(d.path(), build(src, d.path()));
  RunnerRun r = run_runner(job, {}, d.path().string());
  ASSERT_TRUE(r.report.finished) << r.process.describe() << r.process.err;
  EXPECT_NE(r.report.late_write.find("out.0"), std::string::npos) << r.report.late_write;
}

TEST(Sandbox, WallClockLimitKillsTheGroup) {
  TempDir d("evk-sbx-");
  const char* src = R"(#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  volatile int spin = 1;
  #pragma omp parallel num_threads(2)
  while (spin) {}
  return 0;
})";
  auto job = relu_job(d.path(), build(src, d.path()));
  RunnerLimits lim;
  lim.timeout_s = 1.5;
  lim.threads = 2;
  RunnerRun r = run_runner(job, lim, d.path().string());
  EXPECT_TRUE(r.process.timed_out);
  EXPECT_LT(r.process.wall_s, lim.timeout_s + 1);
  EXPECT_EQ(r.report.last_phase, "seed 0");
}

TEST(Sandbox, ForbiddenCallIsNamed) {
  TempDir d("evk-sbx-");
  const char* src = R"(#include "evokernel/kernel_abi.h"
#include <sys/socket.h>
extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1;
})";
  auto job = relu_job(d.path(), build(src, d.path()));
  RunnerRun r = run_runner(job, {}, d.path().string());
  EXPECT_EQ(r.report.forbidden_syscall, "socket");
  EXPECT_FALSE(r.process.ok());
}

}  // namespace
}  // namespace evk
