// The runner's seccomp filter, installed after the candidate library is loaded and before any
// of its code runs again. Default allow; processes, exec, sockets, tracing and session changes
// stop the process (SIGSYS, reported as the forbidden call's name on the verdict channel);
// opening, creating, renaming or deleting files fails with EACCES (libraries loaded already,
// inputs read already: the runner itself needs no file after this point); clone3 answers
// ENOSYS so that glibc falls back to clone, where only thread creation is allowed.
#pragma once

namespace evk::runner {

// `report_fd` receives {"event":"forbidden_syscall","name":...} when the filter stops the
// process. Throws Error when the filter cannot be installed.
// `files_by_landlock`: file access is already confined by Landlock (runtime_prelude.h), so
// opens are left to it instead of all being denied.
void install_sandbox(int report_fd, bool files_by_landlock = false);

}  // namespace evk::runner
