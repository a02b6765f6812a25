// Starting evk-runner on one job: a fresh process per candidate, in its own process group,
// with rlimits (address space, CPU time, file size, processes, no core files), a wall-clock
// timeout that kills the group, a clean environment fixing the thread count, and capped
// stdout/stderr.
#pragma once
#include <cstdint>
#include <map>
#include <string>

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

struct RunnerRun {
  ProcessResult process;
  RunnerReport report;
};

// `workdir` is the candidate's private folder (cwd of the runner, where outputs go).
RunnerRun run_runner(const RunnerJob& job, const RunnerLimits& lim, const std::string& workdir);

}  // namespace evk
