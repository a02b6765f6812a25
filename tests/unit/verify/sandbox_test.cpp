// evk-runner on hand-made jobs, bypassing the static gates, so that the dynamic defences are
// exercised on their own: late writes from a detached thread, the wall-clock kill, the
// sandbox's verdict on forbidden calls, the outputs protocol, the jail (identity, view,
// pinning), and, after the whole hostile corpus, that nothing outside the jail changed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include "backends/backend.h"
#include "core/cpu_lease.h"
#include "core/paths.h"
#include "core/process.h"
#include "corpus.h"
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
  EXPECT_EQ(r.report.records,
            (std::vector<std::string>{"seed0", "seed1", "reuse", "post0", "post1"}));
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

TEST(Sandbox, KernelRunsJailedFromItsFirstInstruction) {
  // Checked in a global constructor, so before evk_forward: the jail is there at load time.
  TempDir d("evk-sbx-");
  const char* src = R"(#include "evokernel/kernel_abi.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>
static int why = -1;
struct AtLoad {
  AtLoad() {
    cpu_set_t set;
    struct stat st;
    if (getuid() != 65534 || getgid() != 65534) why = 1;           // unprivileged identity
    else if (getpid() != 2) why = 2;                               // own pid namespace
    else if (stat("/etc/passwd", &st) == 0) why = 3;               // host files are not there
    else if (stat("/var", &st) == 0 || stat("/root", &st) == 0) why = 4;
    else if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) why = 5;
    else if (open("/tmp/x", O_WRONLY | O_CREAT, 0600) >= 0) why = 6;  // filter already on
    else why = 0;
  }
} at_load;
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  if (why) return 100 + why;
  const float* x = (const float*)in[0].data; float* y = (float*)out[0].data;
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] > 0 ? x[i] : 0;
  return 0;
})";
  auto job = relu_job(d.path(), build(src, d.path()));
  RunnerRun r = run_runner(job, {}, d.path().string());
  ASSERT_TRUE(r.jailed) << runner_jail_unavailable();
  ASSERT_TRUE(r.process.ok()) << r.process.describe() << r.process.err;
  EXPECT_EQ(r.report.failed_rc, 0) << "100 + the first jail property that failed";
  EXPECT_TRUE(r.report.finished);
  ASSERT_EQ(r.cpus.size(), 1u);
  EXPECT_GT(r.process.cpu_s, 0.0);
}

TEST(Sandbox, ParallelRunnersGetDistinctCpus) {
  if (usable_cpus().size() < 2) GTEST_SKIP() << "one CPU: nothing to tell apart";
  CpuLease a(1), b(1);
  EXPECT_NE(a.cpus(), b.cpus());
}

// The state outside the jail that a hostile kernel could change: a canary file (owner, mode,
// time stamps, extended attributes, content), a descriptor of ours left open across exec, an
// unrelated process, the System V IPC objects and the files under /tmp.
struct Outside {
  static constexpr const char* kCanary = "/tmp/evk-hostile-canary";
  struct stat st {};
  std::string content, ipcs, tmp_files;
  off_t fd_offset = 0;
  bool has_xattr = false, sleeper_alive = false, shm_key_exists = false;

  static std::string listing(const char* dir, const char* prefix) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind(prefix, 0) == 0) names.insert(e.path().string());
    std::string out;
    for (const auto& n : names) out += n + "\n";
    return out;
  }

  static Outside take(int fd, pid_t sleeper) {
    Outside o;
    ::lstat(kCanary, &o.st);
    o.content = read_file(kCanary);
    char v[8];
    o.has_xattr = ::lgetxattr(kCanary, "user.evk", v, sizeof v) >= 0;
    o.fd_offset = ::lseek(fd, 0, SEEK_CUR);
    o.sleeper_alive = ::kill(sleeper, 0) == 0;
    o.shm_key_exists = ::shmget(0x45564b31, 0, 0) >= 0;
    ProcessResult r = run_process({"ipcs"});
    o.ipcs = r.out;
    o.tmp_files = listing("/tmp", "evk-hostile-");
    return o;
  }
};

class HostileCorpus : public corpus_test::Corpus {};

TEST_F(HostileCorpus, NothingOutsideTheJailChanges) {
  for (const auto& p : fs::directory_iterator("/tmp"))
    if (p.path().filename().string().rfind("evk-hostile-", 0) == 0) fs::remove(p.path());
  write_file_atomic(Outside::kCanary, "canary\n");
  ::chmod(Outside::kCanary, 0644);
  struct timespec when[2] = {{1700000000, 0}, {1700000000, 0}};
  ::utimensat(AT_FDCWD, Outside::kCanary, when, 0);
  // Open across exec on purpose: run_process must close it in the runner.
  int fd = ::open(Outside::kCanary, O_RDWR);
  ASSERT_GE(fd, 3);
  pid_t sleeper = ::fork();
  if (sleeper == 0) {
    ::execl("/bin/sleep", "sleep", "600", nullptr);
    ::_exit(127);
  }
  Outside before = Outside::take(fd, sleeper);
  ASSERT_TRUE(before.sleeper_alive);

  auto cases = corpus_test::corpus("cpu", "hostile");
  ASSERT_GE(cases.size(), 25u);
  auto verdicts = run_all(cases, 5);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_FALSE(verdicts[i].feasible) << cases[i].file << ": " << verdicts[i].feedback;
    EXPECT_TRUE(verdicts[i].metrics.value("jailed", true)) << cases[i].file;
  }

  Outside after = Outside::take(fd, sleeper);
  EXPECT_EQ(after.st.st_uid, before.st.st_uid) << "lchown reached the canary";
  EXPECT_EQ(after.st.st_gid, before.st.st_gid);
  EXPECT_EQ(after.st.st_mode, before.st.st_mode);
  EXPECT_EQ(after.st.st_mtim.tv_sec, before.st.st_mtim.tv_sec) << "utimensat reached it";
  EXPECT_EQ(after.content, before.content) << "a write reached it (an inherited descriptor?)";
  EXPECT_EQ(after.fd_offset, before.fd_offset);
  EXPECT_FALSE(after.has_xattr) << "setxattr reached the canary";
  EXPECT_TRUE(after.sleeper_alive) << "a signal reached an unrelated process";
  EXPECT_FALSE(after.shm_key_exists) << "a SysV segment outlived its run";
  EXPECT_EQ(after.ipcs, before.ipcs);
  EXPECT_EQ(after.tmp_files, before.tmp_files) << "a file appeared in the host's /tmp";
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, nullptr, 0);
  ::close(fd);
  fs::remove(Outside::kCanary);
}

}  // namespace
}  // namespace evk
