// Starting evk-runner on one job: a fresh process per candidate, in its own process group,
// with rlimits (address space, CPU time, file size, processes, no core files), a wall-clock
// timeout that kills the group, a clean environment fixing the thread count, capped
// stdout/stderr, and only the descriptors of the job's channels inherited.
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
  double timeout_s = 60;
  uint64_t address_space_mb = 8192;        // 0: no address-space limit
  int threads = 1;
  size_t output_cap = 1 << 20;  // bytes of stderr kept; more is reported as a flood
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
};

// `workdir` is the candidate's private folder (cwd of the runner). Blocks until the runner ends.
RunnerRun run_runner(const RunnerJob& job, const RunnerLimits& lim, const std::string& workdir,
                     const RunnerHooks& hooks = {});

}  // namespace evk
