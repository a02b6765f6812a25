#include "core/cpu_lease.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "core/temp_dir.h"

namespace evk {
namespace {

// A lock directory of the test's own, so that the leases of concurrently running tests do
// not count as other processes' here.
struct OwnLockDir {
  TempDir dir{"evk-lease-"};
  OwnLockDir() { ::setenv("EVK_CPU_LOCK_DIR", dir.path().c_str(), 1); }
  ~OwnLockDir() { ::unsetenv("EVK_CPU_LOCK_DIR"); }
};

// A child process that takes a lease of one CPU, writes its number to the pipe, and holds it
// until the parent closes its end of the second pipe.
struct LeasingChild {
  pid_t pid = -1;
  int cpu = -1;
  int hold_fd = -1;

  LeasingChild() {
    int report[2], hold[2];
    if (::pipe(report) != 0 || ::pipe(hold) != 0) return;
    pid = ::fork();
    if (pid == 0) {
      // Only its own ends: an earlier child's hold end kept open here would keep that child
      // from seeing EOF.
      for (int fd = 3; fd < 1024; ++fd)
        if (fd != report[1] && fd != hold[0]) ::close(fd);
      CpuLease lease(1);
      int c = lease.cpus().front();
      (void)!::write(report[1], &c, sizeof c);
      char b;
      (void)!::read(hold[0], &b, 1);  // EOF when the parent lets go
      ::_exit(0);
    }
    ::close(report[1]);
    ::close(hold[0]);
    hold_fd = hold[1];
    if (::read(report[0], &cpu, sizeof cpu) != sizeof cpu) cpu = -1;
    ::close(report[0]);
  }
  void end() {
    if (hold_fd >= 0) ::close(hold_fd);
    hold_fd = -1;
    if (pid > 0) ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
  ~LeasingChild() { end(); }
};

TEST(CpuLease, AnotherProcessesLeasedCpuIsLeftToIt) {
  if (usable_cpus().size() < 2) GTEST_SKIP() << "one CPU: nothing to tell apart";
  OwnLockDir own;
  LeasingChild child;
  ASSERT_GE(child.cpu, 0);
  EXPECT_EQ(child.cpu, usable_cpus().front()) << "the lowest free CPU";
  {
    CpuLease mine(1);
    EXPECT_NE(mine.cpus().front(), child.cpu) << "two processes pinned apart";
  }
  // Once the child is gone (its lock dropped by the kernel), its CPU is the lowest free again.
  child.end();
  CpuLease after(1);
  EXPECT_EQ(after.cpus().front(), usable_cpus().front());
}

TEST(CpuLease, WhenEveryCpuIsHeldElsewhereTheLeaseStillGetsOne) {
  const auto all = usable_cpus();
  if (all.size() > 8) GTEST_SKIP() << "more CPUs than this test occupies";
  OwnLockDir own;
  // Other processes hold every CPU: the lease shares one rather than failing.
  std::vector<std::unique_ptr<LeasingChild>> others;
  for (size_t i = 0; i < all.size(); ++i) others.push_back(std::make_unique<LeasingChild>());
  CpuLease a(1), b(1);
  ASSERT_EQ(a.cpus().size(), 1u);
  if (all.size() >= 2) {
    EXPECT_NE(a.cpus(), b.cpus()) << "within the process, still apart";
  }
}

TEST(CpuLease, AnUnusableLockDirectoryLeavesTheWithinProcessChoice) {
  ::setenv("EVK_CPU_LOCK_DIR", "/proc/evk-no-such-dir", 1);
  CpuLease a(1);
  EXPECT_EQ(a.cpus().front(), usable_cpus().front());
  ::unsetenv("EVK_CPU_LOCK_DIR");
}

}  // namespace
}  // namespace evk
