// The jail (core/jail.h) on real children: identity, namespaces, view, and that the program's
// exit status, signals, CPU time, timeout and kept descriptors come through as without it.
#include "core/jail.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

ProcessResult jailed_sh(const std::string& script, JailSpec spec = {}, ProcessOptions o = {}) {
  o.jail = spec;
  return run_process({"/bin/sh", "-c", script}, o);
}

class Jail : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = jail_unavailable(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(Jail, UnprivilegedIdentityInItsOwnNamespaces) {
  ProcessResult r = jailed_sh(
      "id -u; id -g; echo $$; hostname; grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status; "
      "grep NoNewPrivs /proc/self/status; ls /proc | grep -c '^[0-9]'");
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  EXPECT_EQ(r.out,
            "65534\n65534\n2\nevk-jail\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
            "CapBnd:\t0000000000000000\nNoNewPrivs:\t1\n4\n")  // init, sh, ls, grep
      << r.err;
}

TEST_F(Jail, SeesOnlyItsViewReadOnlyWithAPrivateTmp) {
  ProcessResult r = jailed_sh(
      "ls /; test -e /etc/passwd && echo passwd; test -e " + data_root().string() +
      " && echo source; touch /usr/x 2>/dev/null && echo wrote-usr; touch /x 2>/dev/null && "
      "echo wrote-root; echo hi > /tmp/t && cat /tmp/t; ls /tmp");
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  EXPECT_EQ(r.out.find("passwd"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("source"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("wrote"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hi\nt\n"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("/tmp/t") && read_file("/tmp/t") == "hi\n");
  ProcessResult net = jailed_sh("cat /proc/net/dev | grep -c :");
  EXPECT_EQ(net.out, "1\n") << "only a loopback: " << net.out;
}

TEST_F(Jail, BindsAppearAtTheirPathsReadOnlyUnlessWritable) {
  char tmpl[] = "/tmp/evk-jail-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  fs::path dir = tmpl;
  fs::create_directory(dir / "rw");
  write_file_atomic(dir / "f", "data\n");
  for (const auto& p : {dir, dir / "rw", dir / "f"})
    ASSERT_EQ(::lchown(p.c_str(), jail_outer_uid(), jail_outer_gid()), 0);
  JailSpec spec;
  spec.binds = {{dir.string(), false}, {(dir / "rw").string(), true}};
  ProcessResult r = jailed_sh("cat " + (dir / "f").string() + "; touch " + (dir / "g").string() +
                                  " 2>/dev/null && echo wrote-ro; touch " +
                                  (dir / "rw" / "h").string() + " && echo wrote-rw",
                              spec);
  EXPECT_EQ(r.out, "data\nwrote-rw\n") << r.err;
  EXPECT_FALSE(fs::exists(dir / "g"));
  EXPECT_TRUE(fs::exists(dir / "rw" / "h"));
  fs::remove_all(dir);
  EXPECT_THROW(JailPlan({{{"/no/such/path", false}}, {}, 1 << 20}), Error);
}

TEST_F(Jail, ExitStatusSignalsAndCpuTimeComeThrough) {
  EXPECT_EQ(jailed_sh("exit 7").exit_code, 7);
  ProcessResult aborted = jailed_sh("kill -ABRT $$");
  EXPECT_EQ(aborted.term_signal, SIGABRT) << aborted.describe() << aborted.err;
  ProcessResult busy = jailed_sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done");
  ASSERT_TRUE(busy.ok());
  EXPECT_GT(busy.cpu_s, 0.05) << "the jailed program's CPU time reaches wait4";
  ProcessOptions o;
  o.timeout_s = 0.5;
  ProcessResult slow = jailed_sh("sleep 30", {}, o);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_LT(slow.wall_s, 10);
}

TEST_F(Jail, KeptDescriptorsAndPinningReachTheProgram) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  ProcessOptions o;
  o.keep_fds = {p[1]};
  o.cpus = {0};
  ProcessResult r = jailed_sh(
      "echo kept >&" + std::to_string(p[1]) + "; grep Cpus_allowed_list /proc/self/status", {}, o);
  ::close(p[1]);
  char buf[16] = {};
  ASSERT_GT(::read(p[0], buf, sizeof buf - 1), 0);
  ::close(p[0]);
  EXPECT_EQ(std::string(buf), "kept\n");
  EXPECT_EQ(r.out, "Cpus_allowed_list:\t0\n") << r.err;
}

}  // namespace
}  // namespace evk
