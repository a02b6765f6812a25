// What the runner puts on itself inside the jail (src/core/jail.h), before it loads the
// candidate library, so that no candidate code (a global constructor included) runs without it:
//   1. Landlock (where the kernel has it): reading only the system trees, /dev, /proc, /sys and
//      the candidate library itself, writing nothing; or, for runtimes that keep files
//      (runtime_prelude.h's EVK_RUNNER_FS_*), the trees they name.
//   2. A seccomp ALLOWLIST: what the runner, glibc, libstdc++, libgomp, dlopen and an honest
//      kernel need. Every other call stops the process with SIGSYS, reported as
//      {"event":"forbidden_syscall","name":"<call>"} on the report channel. Among them:
//      processes and exec (clone without CLONE_THREAD), io_uring, pidfd_*, SysV IPC, timers,
//      ptrace and process_vm_*, signals to anyone but itself, priority, scheduler, affinity
//      and rlimit changes, ownership, time stamps and extended attributes of files, sockets,
//      mount, keyctl, bpf, perf_event_open, userfaultfd, namespaces.
//      Answered with an error instead, for code that copes: opening for writing or creating,
//      and changing the file tree (EACCES, unless `writes` below); clone3 and openat2 (ENOSYS,
//      glibc falls back to clone and openat). Allowed with arguments checked: ioctl (terminal
//      queries; any, with `device`), prctl (naming and queries), fcntl (not F_SETOWN/F_SETSIG),
//      prlimit64 (reading its own). Without `threads` (SandboxOptions), no clone at all.
// The CPU pinning (run_process) cannot be undone: sched_setaffinity is not allowed.
#pragma once
#include <string>

namespace evk::runner {

struct SandboxOptions {
  bool writes = false;  // file creation and changes allowed (confined by Landlock: PoCL's cache)
  bool device = false;  // any ioctl, read-write opens of existing files, mlock (a GPU driver)
  bool threads = true;  // clone of a thread (false: no clone at all, the Ascend C runner)
};

// Installs the filter on the calling thread (and every thread it creates later). `report_fd`
// receives the forbidden-call event. Throws Error when the filter cannot be installed.
void install_sandbox(int report_fd, const SandboxOptions& opt = {});

// The runner's whole sequence before dlopen: the device runtime's discovery (runtime_prelude.h),
// Landlock, then install_sandbox. Returns "" or, when a runtime is missing, what to do (a load
// error for the report). Throws Error when a layer that is asked for cannot be had.
// `opt` supplies what the sequence does not decide itself (threads); writes follow the runtime.
std::string enter_sandbox(int report_fd, const std::string& library, SandboxOptions opt = {});

// The name of system call `nr` of this architecture ("openat"), or "syscall <nr>".
std::string syscall_name(int nr);

}  // namespace evk::runner
