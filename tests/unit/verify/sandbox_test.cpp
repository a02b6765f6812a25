// evk-runner on hand-made jobs, bypassing the static gates, so that the dynamic defences are
// exercised on their own through the parent's plan (verify/trial.h): late writes from a
// detached thread, the wall-clock kill, the sandbox's verdict on forbidden calls, and replies
// forged on the control socket.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/backend.h"
#include "verify/runner_client.h"
#include "verify/trial.h"
#include "verify/temp_dir.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

constexpr int64_t kN = 4096;

// Two seeds of relu inputs with their references, as the verifier hands them to run_trial.
std::vector<TrialSet> relu_sets() {
  std::vector<TrialSet> sets;
  for (int s = 0; s < 2; ++s) {
    Tensor x, y;
    x.shape = y.shape = {kN};
    x.data.resize(kN * 4);
    y.data.resize(kN * 4);
    for (int64_t i = 0; i < kN; ++i) {
      float v = static_cast<float>((i * 7919 + s * 104729) % 2001 - 1000) / 100.0f;
      float r = v > 0 ? v : 0;
      std::memcpy(x.data.data() + 4 * i, &v, 4);
      std::memcpy(y.data.data() + 4 * i, &r, 4);
    }
    TrialSet t;
    t.name = t.description = "seed " + std::to_string(s);
    t.inputs = {x};
    t.outputs = {y};
    t.specs = {{"out.0", DType::F32, {kN}}};
    t.correctness = t.timing = true;
    sets.push_back(std::move(t));
  }
  return sets;
}

TrialOutcome run(const fs::path& lib, const fs::path& dir, RunnerLimits lim = {},
                 double budget_ms = 20) {
  TrialOptions o;
  o.timing_budget_ms = budget_ms;
  return run_trial(lib.string(), {"in.0"}, relu_sets(), 2, o, lim, dir.string());
}

fs::path build(const std::string& src, const fs::path& dir) {
  fs::create_directories(dir);
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

TEST(Sandbox, HonestKernelPassesWithParentTimedBatches) {
  TempDir d("evk-sbx-");
  auto out = run(build(kRelu, d.path()), d.path());
  ASSERT_TRUE(out.passed) << out.category << ": " << out.feedback << out.run.process.err;
  EXPECT_TRUE(out.run.process.ok()) << out.run.process.describe();
  EXPECT_GT(out.trials, 0);
  EXPECT_GE(out.batches, 5);
  EXPECT_GT(out.checked_calls, 0);
  EXPECT_GT(out.median_ms, 0);
  // The runner's own clock is a claim inside the parent's interval.
  EXPECT_LE(out.metrics.value("runner_claimed_ms", 0.0), out.metrics.value("parent_timed_ms", 0.0) + 1e-3);
}

TEST(Sandbox, DetachedThreadWritingAfterReturnIsRejected) {
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
  auto out = run(build(src, d.path()), d.path());
  EXPECT_FALSE(out.passed);
  EXPECT_TRUE(out.category == "mismatch" || out.category == "hack_dynamic") << out.category << ": " << out.feedback;
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
  RunnerLimits lim;
  lim.timeout_s = 1.5;
  lim.threads = 2;
  auto out = run(build(src, d.path()), d.path(), lim);
  EXPECT_TRUE(out.run.process.timed_out);
  EXPECT_TRUE(out.ended_early);
  EXPECT_LT(out.run.process.wall_s, lim.timeout_s + 1);
  EXPECT_EQ(out.phase, "seed 0");
}

TEST(Sandbox, ForbiddenCallIsNamed) {
  TempDir d("evk-sbx-");
  const char* src = R"(#include "evokernel/kernel_abi.h"
#include <sys/socket.h>
extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1;
})";
  auto out = run(build(src, d.path()), d.path());
  EXPECT_EQ(out.run.report.forbidden_syscall, "socket");
  EXPECT_FALSE(out.run.process.ok());
}

TEST(Sandbox, ReplyForgedInsideTheKernelIsAHack) {
  // The control socket is the highest descriptor the runner inherits; a kernel that writes a
  // "done" of its own breaks the reply order the parent enforces.
  TempDir d("evk-sbx-");
  const char* src = R"(#include "evokernel/kernel_abi.h"
#include <unistd.h>
#include <string.h>
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = (const float*)in[0].data; float* y = (float*)out[0].data;
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] > 0 ? x[i] : 0;
  const char* m = "\n{\"done\":true,\"ms\":[0.001],\"rc\":0,\"exception\":\"\",\"failed_call\":-1}\n";
  for (int fd = 3; fd < 64; ++fd) (void)!write(fd, m, strlen(m));
  return 0;
})";
  auto out = run(build(src, d.path()), d.path());
  EXPECT_FALSE(out.passed);
  EXPECT_EQ(out.category, "hack_dynamic") << out.feedback;
}


// Relu with a fixed amount of busy work per element, split over two threads by `split`
// (a std::thread, or OpenMP teams that escape OMP_THREAD_LIMIT): the threads buy a speed-up
// only where nothing stops a second CPU.
std::string busy_relu(const std::string& split) {
  return std::string(R"(#include "evokernel/kernel_abi.h"
#include <thread>
#include <omp.h>
static void part(const float* x, float* y, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) {
    volatile float v = x[i];
    for (int k = 0; k < 600; ++k) v = v * 1.0f;
    y[i] = v < 0 ? 0 : v;
  }
}
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = (const float*)in[0].data; float* y = (float*)out[0].data;
  int64_t n = evk_numel(&in[0]);
)") + split + R"(
  return 0;
})";
}

TEST(Sandbox, ExtraThreadsBuyNoSpeedUp) {
  TempDir d("evk-sbx-");
  // A timing phase long enough for the CPU-time check's 10 ms ticks.
  auto one = run(build(busy_relu("part(x, y, 0, n);"), d.path() / "one"), d.path(), {}, 300);
  ASSERT_TRUE(one.passed) << one.feedback;
  const std::vector<std::string> splits = {
      "std::thread t(part, x, y, 0, n / 2); part(x, y, n / 2, n); t.join();",
      "#pragma omp teams num_teams(2) thread_limit(1)\n"
      "  { int t = omp_get_team_num(); part(x, y, t * n / 2, (t + 1) * n / 2); }",
  };
  for (size_t k = 0; k < splits.size(); ++k) {
    fs::path sub = d.path() / ("split" + std::to_string(k));
    auto two = run(build(busy_relu(splits[k]), sub), d.path(), {}, 300);
    // Either the CPU-time check rejects it, or pinning left it no faster than one thread.
    EXPECT_TRUE(!two.passed || two.median_ms > 0.75 * one.median_ms)
        << splits[k] << ": " << two.median_ms << " ms vs " << one.median_ms << " ms";
    if (!two.passed) {
      EXPECT_EQ(two.category, "hack_dynamic") << two.feedback;
    }
  }
}

}  // namespace
}  // namespace evk
