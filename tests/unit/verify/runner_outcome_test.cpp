// The verifier's classification of how a runner ended (verify/runner_outcome.h), on outcomes
// built by hand: which gate fails, under which category, and what the feedback names.
#include "verify/runner_outcome.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace evk {
namespace {

const RunnerBounds kBounds{.run_timeout_s = 60, .address_space_mb = 8192, .output_cap = 1 << 20};

// A runner that ended early during `phase`, with nothing else known.
TrialOutcome ended_early(const std::string& phase) {
  TrialOutcome o;
  o.ended_early = true;
  o.phase = phase;
  o.run.process.exit_code = 0;
  return o;
}

TEST(RunnerOutcome, APlanCarriedToItsEndIsNoFailure) {
  TrialOutcome o;
  o.passed = true;
  EXPECT_FALSE(classify_runner_outcome(o, kBounds).has_value());
}

TEST(RunnerOutcome, TheTrialsOwnVerdictComesFirst) {
  TrialOutcome o;
  o.gate = Gate::DynamicHack;
  o.category = Category::HackDynamic;
  o.feedback = "the kernel wrote its input";
  o.run.process.timed_out = true;  // a verdict the trial reached is not overridden
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->gate, Gate::DynamicHack);
  EXPECT_EQ(f->category, Category::HackDynamic);
  EXPECT_EQ(f->feedback, "the kernel wrote its input");
}

TEST(RunnerOutcome, TheSandboxsVerdictBeatsTheSignalItSent) {
  TrialOutcome o = ended_early("seed 1");
  o.run.report.forbidden_syscall = "socket";
  o.run.process.term_signal = SIGSYS;
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->category, Category::RuntimeCrash);
  EXPECT_EQ(f->gate, Gate::Correctness);
  EXPECT_NE(f->feedback.find("forbidden system call socket (during seed 1)"), std::string::npos)
      << f->feedback;
}

TEST(RunnerOutcome, AHangDuringTimingFailsTheLatencyGate) {
  TrialOutcome o = ended_early("timing");
  o.run.process.timed_out = true;
  o.run.process.term_signal = SIGKILL;
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->category, Category::Timeout);
  EXPECT_EQ(f->gate, Gate::Latency);
  EXPECT_NE(f->feedback.find("within 60 s (during timing)"), std::string::npos) << f->feedback;
}

TEST(RunnerOutcome, AFloodNamesTheCap) {
  TrialOutcome o = ended_early("seed 0");
  o.run.process.err_truncated = true;
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->category, Category::RuntimeCrash);
  EXPECT_NE(f->feedback.find("more than 1024 KiB"), std::string::npos) << f->feedback;
}

TEST(RunnerOutcome, ACrashGetsAHintForItsSignal) {
  TrialOutcome o = ended_early("seed 0");
  o.run.process.term_signal = SIGSEGV;
  o.run.process.err = "boom";
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->category, Category::RuntimeCrash);
  EXPECT_NE(f->feedback.find("out-of-bounds"), std::string::npos) << f->feedback;
  EXPECT_NE(f->feedback.find("stderr: boom"), std::string::npos) << f->feedback;

  o.run.process.term_signal = SIGABRT;
  o.run.process.err = "terminate called after throwing an instance of 'std::bad_alloc'";
  f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_NE(f->feedback.find("out of memory: the limit is 8192 MiB"), std::string::npos) << f->feedback;
}

TEST(RunnerOutcome, ALibraryThatNeverLoadedIsACompileFailure) {
  TrialOutcome o = ended_early("");
  o.run.report.load_error = "undefined symbol: foo";
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->load_error);
  EXPECT_EQ(f->gate, Gate::Compile);
  EXPECT_EQ(f->category, Category::Compile);
  EXPECT_NE(f->feedback.find("undefined symbol: foo"), std::string::npos);
}

TEST(RunnerOutcome, AnEarlyExitSaysKernelsMustReturn) {
  TrialOutcome o = ended_early("");
  o.run.process.exit_code = 3;
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->category, Category::RuntimeCrash);
  EXPECT_NE(f->feedback.find("exit code 3"), std::string::npos) << f->feedback;
  EXPECT_NE(f->feedback.find("during loading"), std::string::npos) << f->feedback;
}

// A runner that cannot start (a missing library, a broken driver) ends before it is ready,
// as a kernel whose initialiser exits does: the feedback names both and where to look.
TEST(RunnerOutcome, ARunnerThatNeverGotReadyPointsToDoctor) {
  TrialOutcome o = ended_early("");
  o.run.process.exit_code = 127;
  o.run.process.err = "evk-runner-cuda: error while loading shared libraries: libcuda.so.1";
  auto f = classify_runner_outcome(o, kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->category, Category::RuntimeCrash);
  EXPECT_NE(f->feedback.find("`evokernel doctor`"), std::string::npos) << f->feedback;
  EXPECT_NE(f->feedback.find("stderr: evk-runner-cuda: error while loading"), std::string::npos)
      << f->feedback;
  // Once ready, an early end is the kernel's: no pointer to doctor.
  f = classify_runner_outcome(ended_early("seed 0"), kBounds);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->feedback.find("doctor"), std::string::npos) << f->feedback;
}

}  // namespace
}  // namespace evk
