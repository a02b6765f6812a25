// run_process on real children: descriptor inheritance (only keep_fds survive, at their
// numbers) and the CPU time reported from wait4.
#include "core/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "core/temp_dir.h"

namespace evk {
namespace {

// Whether descriptor `fd` is open in a child shell (test -e is a builtin: it opens nothing).
bool open_in_child(int fd, const ProcessOptions& o) {
  ProcessResult r = run_process(
      {"/bin/sh", "-c", "test -e /proc/self/fd/" + std::to_string(fd) + " && echo open"}, o);
  EXPECT_EQ(r.term_signal, 0) << r.describe() << r.err;
  return r.out == "open\n";
}

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() { ::close(fd); }
};

TEST(Process, ClosesInheritedDescriptorsExceptKept) {
  // Neither close-on-exec: without run_process closing them, the child would inherit both.
  Fd a(::open("/dev/null", O_RDONLY));
  Fd b(::open("/dev/null", O_RDONLY));
  ASSERT_GT(a.fd, 2);
  ASSERT_GT(b.fd, 2);
  EXPECT_TRUE(open_in_child(1, {}));  // the probe itself works
  EXPECT_FALSE(open_in_child(a.fd, {}));
  EXPECT_FALSE(open_in_child(b.fd, {}));
  ProcessOptions o;
  o.keep_fds = {b.fd};
  EXPECT_FALSE(open_in_child(a.fd, o));
  EXPECT_TRUE(open_in_child(b.fd, o));
}

TEST(Process, KeptDescriptorLosesCloseOnExecAndWorks) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  Fd rd(p[0]), wr(p[1]);
  ProcessOptions o;
  o.keep_fds = {wr.fd};
  ProcessResult r = run_process({"/bin/sh", "-c", "echo through >&" + std::to_string(wr.fd)}, o);
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  char buf[32] = {};
  ASSERT_GT(::read(rd.fd, buf, sizeof buf - 1), 0);
  EXPECT_EQ(std::string(buf), "through\n");
}

TEST(Process, RejectsKeepingAClosedOrStandardDescriptor) {
  ProcessOptions o;
  o.keep_fds = {1};
  EXPECT_THROW(run_process({"/bin/true"}, o), Error);
  int f = ::open("/dev/null", O_RDONLY);
  ::close(f);
  o.keep_fds = {f};
  EXPECT_THROW(run_process({"/bin/true"}, o), Error);
}

TEST(Process, ReportsChildCpuTimeNotWallTime) {
  // A busy loop and a sleep: only the first spends CPU (a ratio within one run, as the
  // machine is shared; the loop takes well over 50 ms of CPU on any machine).
  ProcessResult busy = run_process(
      {"/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"});
  ProcessResult idle = run_process({"/bin/sleep", "0.3"});
  ASSERT_TRUE(busy.ok() && idle.ok());
  EXPECT_GT(busy.cpu_s, 0.05);
  EXPECT_LT(idle.cpu_s * 5, busy.cpu_s);
  EXPECT_LE(busy.cpu_s, busy.wall_s * 1.05 + 0.02);  // one thread: never more CPU than wall
}

TEST(Process, WallClockLimitKillsTheWholeGroup) {
  ProcessOptions o;
  o.timeout_s = 0.5;
  // The grandchild would outlive a parent-only kill and hold the pipe open.
  ProcessResult r = run_process({"/bin/sh", "-c", "sleep 30 & sleep 30"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.wall_s, 20);
  EXPECT_NE(r.describe().find("timed out"), std::string::npos) << r.describe();
}

TEST(Process, ResourceLimitsHold) {
  ProcessOptions as;
  as.address_space_bytes = 64ull << 20;  // a 256 MiB allocation cannot succeed under 64 MiB
  ProcessResult big = run_process(
      {"/usr/bin/python3", "-c", "b = bytearray(256 << 20); print(len(b))"}, as);
  EXPECT_FALSE(big.ok()) << big.out;

  ProcessOptions cpu;
  cpu.cpu_seconds = 1;
  cpu.timeout_s = 60;
  ProcessResult spin = run_process({"/bin/sh", "-c", "while :; do :; done"}, cpu);
  EXPECT_FALSE(spin.timed_out);
  // SIGXCPU at the soft limit, SIGKILL at the hard one: either way the CPU limit, not the clock.
  EXPECT_TRUE(spin.term_signal == SIGXCPU || spin.term_signal == SIGKILL) << spin.describe();

  ProcessOptions fsz;
  fsz.file_size_bytes = 4096;
  TempDir dir("evk-process-");
  ProcessResult write = run_process(
      {"/bin/sh", "-c", "head -c 100000 /dev/zero > " + (dir.path() / "f").string()}, fsz);
  EXPECT_FALSE(write.ok());
  EXPECT_LE(std::filesystem::file_size(dir.path() / "f"), 4096u);
}

TEST(Process, OutputBeyondTheCapIsCutAndSaidSo) {
  ProcessOptions o;
  o.output_cap = 1000;
  ProcessResult r = run_process({"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x"}, o);
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_TRUE(r.out_truncated);
  EXPECT_LE(r.out.size(), 1000u + 200u);  // the cap plus at most a truncation note
}

}  // namespace
}  // namespace evk
