#include "sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "runtime_prelude.h"

namespace evk::runner {
namespace {

int g_report_fd = -1;
constexpr int kNames = 512;
char g_names[kNames][40];  // filled before the filter goes on: the handler only copies

// Always allowed, whatever the arguments: memory, reading and writing open descriptors,
// queries about itself, threads' synchronisation, time, its own signal handling.
const int kAllowed[] = {
    // memory
    SCMP_SYS(brk),
    SCMP_SYS(mmap),
    SCMP_SYS(munmap),
    SCMP_SYS(mremap),
    SCMP_SYS(mprotect),
    SCMP_SYS(madvise),
    SCMP_SYS(mincore),
    SCMP_SYS(msync),
    SCMP_SYS(membarrier),
    SCMP_SYS(get_mempolicy),
    SCMP_SYS(set_mempolicy),
    SCMP_SYS(mbind),
    // descriptors it has
    SCMP_SYS(read),
    SCMP_SYS(readv),
    SCMP_SYS(pread64),
    SCMP_SYS(preadv),
    SCMP_SYS(preadv2),
    SCMP_SYS(write),
    SCMP_SYS(writev),
    SCMP_SYS(pwrite64),
    SCMP_SYS(pwritev),
    SCMP_SYS(pwritev2),
    SCMP_SYS(lseek),
    SCMP_SYS(close),
    SCMP_SYS(dup),
    SCMP_SYS(dup2),
    SCMP_SYS(dup3),
    SCMP_SYS(pipe),
    SCMP_SYS(pipe2),
    SCMP_SYS(fsync),
    SCMP_SYS(fdatasync),
    SCMP_SYS(ftruncate),
    SCMP_SYS(fallocate),
    SCMP_SYS(flock),
    SCMP_SYS(fadvise64),
    SCMP_SYS(readahead),
    SCMP_SYS(poll),
    SCMP_SYS(ppoll),
    SCMP_SYS(select),
    SCMP_SYS(pselect6),
    // looking at files (the jail and Landlock decide what exists and may be read)
    SCMP_SYS(fstat),
    SCMP_SYS(stat),
    SCMP_SYS(lstat),
    SCMP_SYS(newfstatat),
    SCMP_SYS(statx),
    SCMP_SYS(fstatfs),
    SCMP_SYS(statfs),
    SCMP_SYS(access),
    SCMP_SYS(faccessat),
    SCMP_SYS(faccessat2),
    SCMP_SYS(readlink),
    SCMP_SYS(readlinkat),
    SCMP_SYS(getdents),
    SCMP_SYS(getdents64),
    SCMP_SYS(getcwd),
    SCMP_SYS(chdir),
    SCMP_SYS(fchdir),
    SCMP_SYS(umask),
    // itself
    SCMP_SYS(getpid),
    SCMP_SYS(gettid),
    SCMP_SYS(getppid),
    SCMP_SYS(getuid),
    SCMP_SYS(geteuid),
    SCMP_SYS(getgid),
    SCMP_SYS(getegid),
    SCMP_SYS(getgroups),
    SCMP_SYS(getresuid),
    SCMP_SYS(getresgid),
    SCMP_SYS(getpgrp),
    SCMP_SYS(getpgid),
    SCMP_SYS(getsid),
    SCMP_SYS(uname),
    SCMP_SYS(sysinfo),
    SCMP_SYS(getrusage),
    SCMP_SYS(times),
    SCMP_SYS(getrlimit),
    SCMP_SYS(getcpu),
    SCMP_SYS(getrandom),
    SCMP_SYS(arch_prctl),
    SCMP_SYS(set_tid_address),
    SCMP_SYS(set_robust_list),
    SCMP_SYS(rseq),
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
    SCMP_SYS(restart_syscall),
    // threads and scheduling queries
    SCMP_SYS(futex),
    SCMP_SYS(futex_waitv),
    SCMP_SYS(sched_yield),
    SCMP_SYS(sched_getaffinity),
    SCMP_SYS(sched_getparam),
    SCMP_SYS(sched_getscheduler),
    SCMP_SYS(sched_getattr),
    SCMP_SYS(sched_get_priority_max),
    SCMP_SYS(sched_get_priority_min),
    SCMP_SYS(sched_rr_get_interval),
    SCMP_SYS(getpriority),
    // time
    SCMP_SYS(clock_gettime),
    SCMP_SYS(clock_getres),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(time),
    SCMP_SYS(nanosleep),
    SCMP_SYS(clock_nanosleep),
    // its own signals
    SCMP_SYS(rt_sigaction),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(sigaltstack),
    SCMP_SYS(rt_sigpending),
    SCMP_SYS(rt_sigtimedwait),
    SCMP_SYS(rt_sigsuspend),
    SCMP_SYS(pause),
};

// Changing the file tree: EACCES (a kernel that tries learns it may not), allowed with
// SandboxOptions::writes (the jail's view and Landlock then say where).
const int kTreeChanges[] = {
    SCMP_SYS(creat),     SCMP_SYS(mkdir),  SCMP_SYS(mkdirat),  SCMP_SYS(unlink),
    SCMP_SYS(unlinkat),  SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
    SCMP_SYS(rmdir),     SCMP_SYS(link),   SCMP_SYS(linkat),   SCMP_SYS(symlink),
    SCMP_SYS(symlinkat), SCMP_SYS(chmod),  SCMP_SYS(fchmod),   SCMP_SYS(fchmodat),
    SCMP_SYS(truncate),  SCMP_SYS(mknod),  SCMP_SYS(mknodat),
};

// Query and naming options of prctl; every other option stops the process.
const int kPrctlAllowed[] = {PR_SET_NAME,         PR_GET_NAME,        PR_GET_DUMPABLE,
                             PR_GET_NO_NEW_PRIVS, PR_CAPBSET_READ,    PR_GET_TIMERSLACK,
                             PR_GET_SECUREBITS,   PR_GET_THP_DISABLE, 0x53564d41 /* PR_SET_VMA */};

// fcntl commands on its own descriptors; F_SETOWN/F_SETSIG (signals to others) are not here.
const int kFcntlAllowed[] = {F_DUPFD,         F_GETFD,      F_SETFD,     F_GETFL,
                             F_SETFL,         F_GETLK,      F_SETLK,     F_SETLKW,
                             F_DUPFD_CLOEXEC, F_OFD_GETLK,  F_OFD_SETLK, F_OFD_SETLKW,
                             F_GETPIPE_SZ,    F_SETPIPE_SZ, F_GET_SEALS, F_ADD_SEALS};

// Terminal queries isatty() and stdio make; other ioctls stop the process (for a device, all
// are allowed).
const unsigned long kIoctlAllowed[] = {TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX};

// Open flags that create, truncate or write.
constexpr scmp_datum_t kWriteFlags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | 020000000;
constexpr scmp_datum_t kCreateFlags = O_CREAT | O_TRUNC | 020000000;  // 020000000: __O_TMPFILE

bool g_threads = true;  // SandboxOptions::threads, for the report's name of a refused clone

void on_sigsys(int, siginfo_t* info, void*) {
  int nr = info->si_syscall;
  const char* name = nr >= 0 && nr < kNames && g_names[nr][0] ? g_names[nr] : "a system call";
  if (nr == SCMP_SYS(clone)) name = g_threads ? "clone (a new process)" : "clone (a thread)";
  // Async-signal-safe: assemble with plain copies, one write, then leave at once.
  char buf[160];
  const char* head = "\n{\"event\":\"forbidden_syscall\",\"name\":\"";
  const char* tail = "\"}\n";
  size_t n = 0;
  for (const char* p = head; *p && n < sizeof buf - 48; ++p) buf[n++] = *p;
  for (const char* p = name; *p && n < sizeof buf - 8; ++p) buf[n++] = *p;
  for (const char* p = tail; *p; ++p) buf[n++] = *p;
  ssize_t ignored = ::write(g_report_fd, buf, n);
  (void)ignored;
  ::syscall(SYS_exit_group, 159);
}

void check(int rc, const std::string& what) {
  if (rc < 0) throw Error("seccomp: " + what + ": " + strerror(-rc));
}

class Filter {
 public:
  Filter() : ctx_(seccomp_init(SCMP_ACT_TRAP)) {
    if (!ctx_) throw Error("seccomp_init failed");
  }
  ~Filter() { seccomp_release(ctx_); }
  void allow(int nr) { add(SCMP_ACT_ALLOW, nr, {}); }
  void add(uint32_t action, int nr, std::initializer_list<scmp_arg_cmp> args) {
    check(seccomp_rule_add_array(ctx_, action, nr, static_cast<unsigned>(args.size()),
                                 args.size() ? args.begin() : nullptr),
          syscall_name(nr));
  }
  void load() { check(seccomp_load(ctx_), "load"); }

 private:
  scmp_filter_ctx ctx_;
};

}  // namespace

std::string syscall_name(int nr) {
  char* n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  std::string s = n ? n : "syscall " + std::to_string(nr);
  std::free(n);
  return s;
}

void install_sandbox(int report_fd, const SandboxOptions& opt) {
  g_report_fd = report_fd;
  g_threads = opt.threads;
  for (int nr = 0; nr < kNames; ++nr) {
    char* n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    g_names[nr][0] = 0;
    if (n) ::strncat(g_names[nr], n, sizeof g_names[nr] - 1);
    std::free(n);
  }
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) throw_errno("sigaction(SIGSYS)");

  Filter f;
  for (int nr : kAllowed) f.allow(nr);
  const scmp_datum_t self = static_cast<scmp_datum_t>(::getpid());

  // Threads only: clone with CLONE_THREAD; clone3 is answered ENOSYS so glibc uses clone.
  if (opt.threads)
    f.add(SCMP_ACT_ALLOW, SCMP_SYS(clone),
          {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)});
  f.add(SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), {});
  // Signals to itself (its threads) only.
  f.add(SCMP_ACT_ALLOW, SCMP_SYS(kill), {SCMP_A0(SCMP_CMP_EQ, self)});
  f.add(SCMP_ACT_ALLOW, SCMP_SYS(tgkill), {SCMP_A0(SCMP_CMP_EQ, self)});
  f.add(SCMP_ACT_ALLOW, SCMP_SYS(rt_sigqueueinfo), {SCMP_A0(SCMP_CMP_EQ, self)});
  f.add(SCMP_ACT_ALLOW, SCMP_SYS(rt_tgsigqueueinfo), {SCMP_A0(SCMP_CMP_EQ, self)});
  // getrlimit through prlimit64: its own limits, reading only.
  f.add(SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)});
  f.add(SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), {SCMP_A0(SCMP_CMP_EQ, self), SCMP_A2(SCMP_CMP_EQ, 0)});
  for (int cmd : kFcntlAllowed)
    f.add(SCMP_ACT_ALLOW, SCMP_SYS(fcntl), {SCMP_A1(SCMP_CMP_EQ, static_cast<scmp_datum_t>(cmd))});
  for (int op : kPrctlAllowed)
    f.add(SCMP_ACT_ALLOW, SCMP_SYS(prctl), {SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(op))});
  // Opening: read-only everywhere; writing per the options.
  scmp_datum_t denied = opt.writes ? 0 : opt.device ? kCreateFlags : kWriteFlags;
  if (denied == 0) {
    f.allow(SCMP_SYS(open));
    f.allow(SCMP_SYS(openat));
  } else {
    f.add(SCMP_ACT_ALLOW, SCMP_SYS(open), {SCMP_A1(SCMP_CMP_MASKED_EQ, denied, 0)});
    f.add(SCMP_ACT_ALLOW, SCMP_SYS(openat), {SCMP_A2(SCMP_CMP_MASKED_EQ, denied, 0)});
    // Disjoint from the rules above (one rule per flag bit): no two actions for one call.
    for (scmp_datum_t bit = 1; bit != 0 && bit <= denied; bit <<= 1) {
      if (!(denied & bit)) continue;
      f.add(SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), {SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit)});
      f.add(SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), {SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit)});
    }
  }
  f.add(SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), {});
  for (int nr : kTreeChanges) f.add(opt.writes ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EACCES), nr, {});

  if (opt.device) {
    // A GPU driver talks to its device nodes with ioctls and mapped memory, pins host memory
    // and waits on event descriptors.
    for (int nr : {SCMP_SYS(ioctl), SCMP_SYS(mlock), SCMP_SYS(munlock), SCMP_SYS(eventfd2),
                   SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
                   SCMP_SYS(epoll_pwait), SCMP_SYS(memfd_create)})
      f.allow(nr);
  } else {
    for (unsigned long op : kIoctlAllowed)
      f.add(SCMP_ACT_ALLOW, SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, op)});
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw_errno("prctl(NO_NEW_PRIVS)");
  f.load();
}

std::string enter_sandbox(int report_fd, const std::string& library, SandboxOptions opt) {
  // Runtime discovery is the runner's own code: it runs before any filter (and before any
  // candidate code, which is not loaded yet).
  if (std::string why = prepare_runtimes(); !why.empty()) return why;
  FilePolicy files = file_policy_from_env();
  bool runtime_files = files.active();
  if (runtime_files) {
    // The library is loaded after Landlock is on; the loader reads its cache to find its
    // dependencies.
    files.read_only.push_back(library);
    if (::access("/etc/ld.so.cache", R_OK) == 0) files.read_only.push_back("/etc/ld.so.cache");
  } else {
    files = default_file_policy(library);
  }
  if (runtime_files || landlock_abi() >= 1) restrict_files(files);
  opt.writes = runtime_files && !files.read_write.empty();
  install_sandbox(report_fd, opt);
  return "";
}

}  // namespace evk::runner
