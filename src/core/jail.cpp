#include "core/jail.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

constexpr uid_t kJailId = 65534;  // nobody/nogroup, inside and (when we are root) outside
const char kNewRoot[] = "/newroot";
const char kOldRoot[] = "/oldroot";

// --- async-signal-safe helpers for the child ---------------------------------------------

size_t append(char* buf, size_t n, size_t cap, const char* s) {
  while (*s && n + 1 < cap) buf[n++] = *s++;
  buf[n] = 0;
  return n;
}

size_t append_int(char* buf, size_t n, size_t cap, long v) {
  char digits[24];
  int k = 0;
  bool neg = v < 0;
  unsigned long u = neg ? static_cast<unsigned long>(-v) : static_cast<unsigned long>(v);
  do digits[k++] = static_cast<char>('0' + u % 10);
  while ((u /= 10) && k < 23);
  if (neg) digits[k++] = '-';
  while (k > 0 && n + 1 < cap) buf[n++] = digits[--k];
  buf[n] = 0;
  return n;
}

// Writes "evk jail: <what> <arg>: <strerror> (errno N)" to fd 2; returns -1.
int fail(const char* what, const char* arg = "") {
  int e = errno;
  char buf[512];
  size_t n = append(buf, 0, sizeof buf, "evk jail: ");
  n = append(buf, n, sizeof buf, what);
  if (*arg) n = append(buf, append(buf, n, sizeof buf, " "), sizeof buf, arg);
  n = append(buf, n, sizeof buf, ": ");
  n = append(buf, n, sizeof buf, strerrordesc_np(e) ? strerrordesc_np(e) : "error");
  n = append(buf, n, sizeof buf, " (errno ");
  n = append_int(buf, n, sizeof buf, e);
  n = append(buf, n, sizeof buf, ")\n");
  ssize_t ignored = ::write(2, buf, n);
  (void)ignored;
  return -1;
}

bool write_file(const char* path, const char* text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t len = strlen(text);
  bool ok = ::write(fd, text, len) == static_cast<ssize_t>(len);
  ::close(fd);
  return ok;
}

int set_attrs(const char* target, unsigned attrs) {
  struct mount_attr a {};
  a.attr_set = attrs;
  return static_cast<int>(
      ::syscall(SYS_mount_setattr, AT_FDCWD, target, AT_RECURSIVE, &a, sizeof a));
}

int run_step(const JailPlan::Step& s) {
  const char* t = s.target.c_str();
  switch (s.kind) {
    case JailPlan::Step::kDir:
      if (::mkdir(t, 0755) != 0 && errno != EEXIST) return fail("mkdir", t);
      return 0;
    case JailPlan::Step::kFile: {
      int fd = ::open(t, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) return fail("create", t);
      ::close(fd);
      return 0;
    }
    case JailPlan::Step::kSymlink:
      if (::symlink(s.source.c_str(), t) != 0) return fail("symlink", t);
      return 0;
    case JailPlan::Step::kTmpfs:
      if (::mount("tmpfs", t, "tmpfs", MS_NOSUID | MS_NODEV, s.source.c_str()) != 0)
        return fail("mount tmpfs on", t);
      return 0;
    case JailPlan::Step::kBind:
      if (::mount(s.source.c_str(), t, nullptr, MS_BIND | MS_REC, nullptr) != 0)
        return fail("bind", s.source.c_str());
      if (set_attrs(t, static_cast<unsigned>(s.attrs)) != 0) return fail("mount_setattr", t);
      return 0;
    case JailPlan::Step::kProc:
      if (::mount("proc", t, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
        return fail("mount proc on", t);
      return 0;
    case JailPlan::Step::kReadOnlyRoot:
      if (::mount(nullptr, t, nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
        return fail("remount read-only", t);
      return 0;
  }
  return 0;
}

// Waits for `pid`, then leaves as it left: the same exit code, or death by the same signal.
// `status_fd` >= 0: the status arrives there (from the init below) instead.
[[noreturn]] void mirror(pid_t pid, int status_fd) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (status_fd >= 0) {
    int inner = 0;
    if (::read(status_fd, &inner, sizeof inner) == static_cast<ssize_t>(sizeof inner))
      status = inner;
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    ::signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
    ::kill(::getpid(), sig);
    _exit(128 + sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
}

int drop_privileges() {
  // Nothing gained at exec either: no root semantics, no setuid fix-ups, all sets empty.
  if (::prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                                     SECBIT_NO_CAP_AMBIENT_RAISE |
                                     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) != 0)
    return fail("prctl(PR_SET_SECUREBITS)");
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
      return fail("prctl(PR_CAPBSET_DROP)");
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct hdr {
    _LINUX_CAPABILITY_VERSION_3, 0
  };
  struct __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &hdr, data) != 0) return fail("capset");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("prctl(PR_SET_NO_NEW_PRIVS)");
  return 0;
}

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

}  // namespace

uid_t jail_outer_uid() {
  return ::geteuid() == 0 ? kJailId : ::geteuid();
}
gid_t jail_outer_gid() {
  return ::geteuid() == 0 ? kJailId : ::getegid();
}

JailPlan::JailPlan(const JailSpec& spec) : root_(::geteuid() == 0) {
  std::string nr = kNewRoot, old = kOldRoot;
  auto add = [&](Step::Kind k, const std::string& inside, std::string source = "", int attrs = 0) {
    steps_.push_back({k, nr + inside, std::move(source), attrs});
  };
  const int ro = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  add(Step::kTmpfs, "", "mode=0755,size=4m");
  std::set<std::string> made = {""};  // folders of the new root created so far
  std::vector<std::string> bound;     // trees bound so far: what lies under them exists
  auto under_bound = [&](const std::string& p) {
    for (const auto& b : bound)
      if (p == b || p.rfind(b + "/", 0) == 0) return true;
    return false;
  };
  auto make_parents = [&](const fs::path& p) {
    std::string cur;
    for (const auto& part : p.parent_path().relative_path()) {
      cur += "/" + part.string();
      if (made.count(cur) || under_bound(cur)) continue;
      add(Step::kDir, cur);
      made.insert(cur);
    }
  };
  auto bind = [&](const std::string& path, int attrs) {
    fs::path p(path);
    std::error_code ec;
    bool dir = fs::is_directory(p, ec);
    if (!under_bound(path)) {
      make_parents(p);
      add(dir ? Step::kDir : Step::kFile, path);
      if (dir) made.insert(path);
    }
    add(Step::kBind, path, old + path, attrs);
    if (dir) bound.push_back(path);
  };

  for (const char* sys : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    auto st = fs::symlink_status(sys, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      add(Step::kSymlink, sys, fs::read_symlink(sys).string());
    } else if (fs::is_directory(st)) {
      bind(sys, ro);
    }
  }
  if (present("/etc/ld.so.cache")) bind("/etc/ld.so.cache", ro);

  add(Step::kDir, "/tmp");
  add(Step::kTmpfs, "/tmp", "mode=1777,size=" + std::to_string(spec.tmp_bytes));
  made.insert("/tmp");
  add(Step::kDir, "/dev");
  add(Step::kTmpfs, "/dev", "mode=0755,size=64k");
  made.insert("/dev");
  std::vector<std::string> devices = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                      "/dev/urandom"};
  devices.insert(devices.end(), spec.devices.begin(), spec.devices.end());
  for (const auto& d : devices) {
    if (d.rfind("/dev/", 0) != 0 || d.find("/..") != std::string::npos)
      throw Error("jail: the device " + d + " is not a path under /dev");
    if (!present(d)) throw Error("jail: the device " + d + " does not exist on this machine");
    make_parents(d);
    add(Step::kFile, d);
    add(Step::kBind, d, old + d, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
  }
  add(Step::kSymlink, "/dev/fd", "/proc/self/fd");
  add(Step::kSymlink, "/dev/stdin", "/proc/self/fd/0");
  add(Step::kSymlink, "/dev/stdout", "/proc/self/fd/1");
  add(Step::kSymlink, "/dev/stderr", "/proc/self/fd/2");
  add(Step::kDir, "/proc");
  add(Step::kProc, "/proc");
  made.insert("/proc");

  // Parents before children: a writable folder inside a read-only one is mounted over it.
  std::vector<JailBind> binds = spec.binds;
  std::sort(binds.begin(), binds.end(),
            [](const JailBind& a, const JailBind& b) { return a.path < b.path; });
  for (const auto& b : binds) {
    fs::path p(b.path);
    if (!p.is_absolute() || p.lexically_normal() != p)
      throw Error("jail: the bind path " + b.path + " must be absolute and normal");
    if (!present(p)) throw Error("jail: the bind path " + b.path + " does not exist");
    for (const char* reserved : {"/proc", "/dev", "/tmp"})
      if (b.path == reserved) throw Error("jail: " + b.path + " cannot be bound over");
    bind(b.path, b.writable ? MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : ro);
  }
  add(Step::kReadOnlyRoot, "");

  std::string outer = root_ ? std::to_string(kJailId) : "0";
  uid_map_ = std::to_string(kJailId) + " " + outer + " 1\n";
  gid_map_ = uid_map_;
  stage1_uid_map_ = "0 " + std::to_string(::geteuid()) + " 1\n";
  stage1_gid_map_ = "0 " + std::to_string(::getegid()) + " 1\n";
}

int JailPlan::enter(const char* cwd) const {
  // Stage 1: a private mount namespace (and, unprivileged, a user namespace to own it) and a
  // pid namespace whose init builds the view.
  int flags = CLONE_NEWNS | CLONE_NEWPID | (root_ ? 0 : CLONE_NEWUSER);
  if (::unshare(flags) != 0) return fail("unshare (mount, pid namespaces)");
  if (!root_) {
    if (!write_file("/proc/self/setgroups", "deny")) return fail("write /proc/self/setgroups");
    if (!write_file("/proc/self/uid_map", stage1_uid_map_.c_str())) return fail("write uid_map");
    if (!write_file("/proc/self/gid_map", stage1_gid_map_.c_str())) return fail("write gid_map");
  }
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) return fail("pipe");
  pid_t init = ::fork();
  if (init < 0) return fail("fork (init)");
  if (init > 0) {
    ::close(status_pipe[1]);
    for (int f = 0; f <= 2; ++f) ::close(f);  // the output pipes close when the program ends
    mirror(init, status_pipe[0]);
  }
  ::close(status_pipe[0]);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);

  // The view: a tmpfs base with the host's root under /oldroot and the new root in /newroot.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return fail("make mounts private");
  if (::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700,size=64k") != 0)
    return fail("mount the base tmpfs");
  if (::mkdir("/tmp/newroot", 0755) != 0 || ::mkdir("/tmp/oldroot", 0755) != 0)
    return fail("mkdir in the base tmpfs");
  if (::syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") != 0) return fail("pivot_root (base)");
  if (::chdir("/") != 0) return fail("chdir /");
  for (const Step& s : steps_)
    if (run_step(s) != 0) return -1;
  if (::chdir(kNewRoot) != 0) return fail("chdir", kNewRoot);
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return fail("pivot_root (jail)");
  if (::umount2(".", MNT_DETACH) != 0) return fail("detach the old root");
  if (::chdir("/") != 0) return fail("chdir /");

  // Stage 2: the jail's identity, in a user namespace that owns none of the mounts above.
  if (root_) {
    if (::setgroups(0, nullptr) != 0) return fail("setgroups");
    if (::setresgid(kJailId, kJailId, kJailId) != 0) return fail("setresgid");
    if (::setresuid(kJailId, kJailId, kJailId) != 0) return fail("setresuid");
    ::prctl(PR_SET_DUMPABLE, 1);  // so that it may write its own /proc/self/uid_map
  }
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP) != 0)
    return fail("unshare (user, net, ipc, uts, cgroup namespaces)");
  if (!write_file("/proc/self/setgroups", "deny")) return fail("write /proc/self/setgroups");
  if (!write_file("/proc/self/uid_map", uid_map_.c_str())) return fail("write uid_map");
  if (!write_file("/proc/self/gid_map", gid_map_.c_str())) return fail("write gid_map");
  const char host[] = "evk-jail";
  if (::sethostname(host, sizeof host - 1) != 0) return fail("sethostname");

  pid_t prog = ::fork();
  if (prog < 0) return fail("fork (program)");
  if (prog > 0) {
    // The init: holds nothing of the program's, reaps it, hands its status up, leaves (which
    // kills anything the program left in the namespace).
    ::syscall(SYS_close_range, 0, status_pipe[1] - 1, 0);
    ::syscall(SYS_close_range, status_pipe[1] + 1, ~0U, 0);
    int status = 0;
    while (::waitpid(prog, &status, 0) < 0 && errno == EINTR) {
    }
    ssize_t ignored = ::write(status_pipe[1], &status, sizeof status);
    (void)ignored;
    _exit(0);
  }
  ::close(status_pipe[1]);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (drop_privileges() != 0) return -1;
  if (cwd && *cwd && ::chdir(cwd) != 0) return fail("chdir", cwd);
  return 0;
}

std::string jail_unavailable() {
  ProcessOptions o;
  o.jail = JailSpec{};
  o.timeout_s = 20;
  try {
    ProcessResult r = run_process({"/bin/true"}, o);
    if (r.ok()) return "";
    std::string err = r.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return err.empty() ? "the jailed /bin/true ended with " + r.describe() : err;
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace evk
