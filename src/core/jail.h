// The jail a child process enters between fork and exec (run_process with
// ProcessOptions::jail), so that the first instruction of the program it executes, a global
// constructor of a library it loads included, already runs jailed:
//   - an unprivileged identity: a user namespace in which the process is uid/gid 65534, mapped
//     to an unprivileged outer id (65534 when we are root, the caller's own id otherwise);
//     supplementary groups dropped, every capability dropped (bounding and ambient sets too),
//     no_new_privs; the mounts it sees belong to a more privileged namespace, so it cannot
//     change or remove them;
//   - new pid, network (a loopback, down), IPC, UTS and cgroup namespaces; the program runs as
//     pid 2 under a minimal init (pid 1), so that signals act as on any process and nothing it
//     starts outlives it;
//   - a filesystem view on an empty, read-only tmpfs root: the system trees (/usr, /bin, /sbin,
//     /lib* as on the host: folders bound read-only, merged-/usr links recreated),
//     /etc/ld.so.cache, a /dev holding null, zero, full, random, urandom and `devices`, a /proc
//     of the new pid namespace, a private writable tmpfs /tmp, and `binds` at the same paths as
//     outside. Nothing else of the host's file system exists inside.
// Not done here: the system-call filter and Landlock (the program installs them on itself,
// runner/sandbox.h), CPU pinning and rlimits (run_process applies them before the jail).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace evk {

struct JailBind {
  std::string path;       // absolute; a file or a folder, seen at the same path inside
  bool writable = false;  // read-only unless set
};

struct JailSpec {
  std::vector<JailBind> binds;       // in any order; a bind under another is mounted after it
  std::vector<std::string> devices;  // extra device nodes (/dev/nvidia0 ...), read-write
  uint64_t tmp_bytes = 64 << 20;     // size of the private /tmp
};

// The outer (host) ids the jail maps to: 65534 when the caller is root, else the caller's own.
// Files a jailed program must write (or read from a private folder) must belong to them.
uid_t jail_outer_uid();
gid_t jail_outer_gid();

// A jail prepared in the parent: every path checked and every string built, so that the child
// (forked from a possibly multi-threaded parent) allocates nothing. Throws Error naming the
// path when a bind or device is not absolute or does not exist.
class JailPlan {
 public:
  explicit JailPlan(const JailSpec& spec);

  // In the forked child: enters the jail. Returns 0 in the process that must exec (pid 2 of
  // the new pid namespace, its cwd `cwd`, or / when null or empty), or -1 after writing what
  // failed to fd 2 (the caller then exits 126). The two processes above it never return: they
  // wait for it and leave with its exit status, or die by its signal. Async-signal-safe.
  int enter(const char* cwd) const;

  struct Step {
    enum Kind { kDir, kFile, kSymlink, kTmpfs, kBind, kProc, kReadOnlyRoot } kind;
    std::string target;  // "/newroot/..."
    std::string source;  // bind: "/oldroot/..."; symlink: the link's text; tmpfs: options
    int attrs = 0;       // bind: MOUNT_ATTR_* set on the mount
  };

 private:
  std::vector<Step> steps_;
  bool root_;  // the caller is root: stage 1 needs no user namespace
  std::string stage1_uid_map_, stage1_gid_map_;  // not root: "0 <uid> 1"
  std::string uid_map_, gid_map_;                // the jail's: "65534 <euid in stage 1> 1"
};

// "" when this machine can make the jail (namespaces, id mapping, mounts), else which step
// failed and why. Tries it for real: runs /bin/true in a jail.
std::string jail_unavailable();

}  // namespace evk
