#include "sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "core/error.h"

namespace evk::runner {
namespace {

int g_report_fd = -1;

struct Trapped {
  int nr;
  const char* name;
};

// Stopping calls: the process ends with a report naming the call.
const Trapped kTrapped[] = {
    {SCMP_SYS(socket), "socket"},       {SCMP_SYS(socketpair), "socketpair"},
    {SCMP_SYS(connect), "connect"},     {SCMP_SYS(bind), "bind"},
    {SCMP_SYS(listen), "listen"},       {SCMP_SYS(accept), "accept"},
    {SCMP_SYS(accept4), "accept4"},     {SCMP_SYS(execve), "execve"},
    {SCMP_SYS(execveat), "execveat"},   {SCMP_SYS(fork), "fork"},
    {SCMP_SYS(vfork), "vfork"},         {SCMP_SYS(ptrace), "ptrace"},
    {SCMP_SYS(setsid), "setsid"},       {SCMP_SYS(setpgid), "setpgid"},
    {SCMP_SYS(mount), "mount"},         {SCMP_SYS(umount2), "umount2"},
    {SCMP_SYS(unshare), "unshare"},     {SCMP_SYS(setns), "setns"},
    {SCMP_SYS(chroot), "chroot"},       {SCMP_SYS(process_vm_writev), "process_vm_writev"},
    {SCMP_SYS(seccomp), "seccomp"},     {SCMP_SYS(kill), "kill"},
    {SCMP_SYS(clone), "clone (a new process)"},
};

// Calls that fail with EACCES: file creation and changes, and every open (nothing is needed).
const int kDenied[] = {
    SCMP_SYS(open),     SCMP_SYS(openat),   SCMP_SYS(creat),    SCMP_SYS(unlink),
    SCMP_SYS(unlinkat), SCMP_SYS(rename),   SCMP_SYS(renameat), SCMP_SYS(renameat2),
    SCMP_SYS(mkdir),    SCMP_SYS(mkdirat),  SCMP_SYS(rmdir),    SCMP_SYS(chmod),
    SCMP_SYS(fchmodat), SCMP_SYS(chown),    SCMP_SYS(truncate), SCMP_SYS(link),
    SCMP_SYS(linkat),   SCMP_SYS(symlink),  SCMP_SYS(symlinkat), SCMP_SYS(mknod),
    SCMP_SYS(mknodat),  SCMP_SYS(openat2),  SCMP_SYS(open_by_handle_at),
};

void on_sigsys(int, siginfo_t* info, void*) {
  const char* name = "a forbidden system call";
  for (const auto& t : kTrapped)
    if (t.nr == info->si_syscall) name = t.name;
  // Async-signal-safe: assemble with plain copies, one write, then leave at once.
  char buf[160];
  const char* head = "\n{\"event\":\"forbidden_syscall\",\"name\":\"";
  const char* tail = "\"}\n";
  size_t n = 0;
  for (const char* p = head; *p && n < sizeof buf - 40; ++p) buf[n++] = *p;
  for (const char* p = name; *p && n < sizeof buf - 8; ++p) buf[n++] = *p;
  for (const char* p = tail; *p; ++p) buf[n++] = *p;
  ssize_t ignored = ::write(g_report_fd, buf, n);
  (void)ignored;
  ::syscall(SYS_exit_group, 159);
}

void check(int rc, const char* what) {
  if (rc < 0) throw Error(std::string("seccomp: ") + what + ": " + strerror(-rc));
}

}  // namespace

void install_sandbox(int report_fd, bool files_by_landlock) {
  g_report_fd = report_fd;
  struct sigaction sa{};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) throw_errno("sigaction(SIGSYS)");

  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) throw Error("seccomp_init failed");
  struct Guard {
    scmp_filter_ctx c;
    ~Guard() { seccomp_release(c); }
  } guard{ctx};
  for (const auto& t : kTrapped) {
    if (t.nr == SCMP_SYS(clone)) {
      // clone is how threads are made: allow it when CLONE_THREAD is set, stop it otherwise.
      check(seccomp_rule_add(ctx, SCMP_ACT_TRAP, t.nr, 1,
                             SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)),
            "clone rule");
      continue;
    }
    check(seccomp_rule_add(ctx, SCMP_ACT_TRAP, t.nr, 0), t.name);
  }
  check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0), "clone3 rule");
  if (!files_by_landlock)
    for (int nr : kDenied) check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr, 0), "deny rule");
  // Signals only to ourselves (threads of this process): tgkill with our own pid.
  check(seccomp_rule_add(ctx, SCMP_ACT_TRAP, SCMP_SYS(tgkill), 1,
                         SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(::getpid()))),
        "tgkill rule");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw_errno("prctl(NO_NEW_PRIVS)");
  check(seccomp_load(ctx), "load");
}

}  // namespace evk::runner
