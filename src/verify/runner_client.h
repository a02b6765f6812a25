// Starting evk-runner on one job: a fresh process per candidate, in its own process group,
// with rlimits (address space, CPU time, file size, processes, no core files), a wall-clock
// timeout that kills the group, a clean environment fixing the thread count, capped
// stdout/stderr, only the job's channel descriptors inherited (RunnerHooks), pinned to `threads`
// CPUs of its own (core/cpu_lease.h) and, unless the user gave --unsafe-no-jail, inside the
// jail (core/jail.h). The jail's view: the runner executable, the candidate's folder
// (read-only) and the runtime's writable folders (EVK_RUNNER_FS_WRITE), at the same paths as
// outside; inputs and outputs travel in shared memory, never as files (runner_protocol.h).
// When we are root, the candidate's folder is handed to the jail's uid first.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/process.h"
#include "verify/runner_protocol.h"

namespace evk {

struct RunnerLimits {
  std::string executable = "evk-runner";  // a file name beside runner_path()
  std::map<std::string, std::string> env;
  // Passed through the jail: /dev entries whose names start with one of device_nodes, and the
  // read-only system_dirs that exist (RunnerSpec, from the backend's registry row).
  std::vector<std::string> device_nodes, system_dirs;
  double timeout_s = 60;
  uint64_t address_space_mb = 8192;        // 0: no address-space limit
  int threads = 1;
  size_t output_cap = 1 << 20;  // bytes of stderr kept; more is reported as a flood
  // The CPUs to pin the runner to; empty: a CpuLease of `threads` CPUs for its lifetime.
  std::vector<int> cpus;
};

// What the parent hands the child besides the job: the descriptors it inherits (the job's
// inputs_fd, outputs_fd, control_fd) and a callback seeing stdout as it arrives.
struct RunnerHooks {
  std::vector<int> keep_fds;
  std::function<void(pid_t, std::string_view)> on_stdout;
};

struct RunnerRun {
  ProcessResult process;
  RunnerReport report;
  bool jailed = true;     // false only under --unsafe-no-jail
  std::vector<int> cpus;  // the CPUs it was pinned to
};

// `workdir` is the candidate's private folder (cwd of the runner). Blocks until the runner
// ends. Throws UsageError when the jail cannot be made on this machine and unsafe mode is off,
// Error when the runner is missing or the jail failed to set up.
RunnerRun run_runner(const RunnerJob& job, const RunnerLimits& lim, const std::string& workdir,
                     const RunnerHooks& hooks = {});

// --unsafe-no-jail (also EVK_UNSAFE_NO_JAIL=1 in the environment): run candidates without the
// jail where the machine cannot make one. The seccomp filter and Landlock still apply.
void set_unsafe_no_jail(bool on);
bool unsafe_no_jail();

// "" when this machine can jail the runner, else what is missing (cached: tried once).
const std::string& runner_jail_unavailable();

}  // namespace evk
