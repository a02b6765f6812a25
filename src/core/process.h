// Running a child process with limits: its own process group, rlimits set in the child before
// exec, a wall-clock timeout that kills the whole group, and stdout/stderr captured up to a cap.
// Invariant relied on by the verifier: when run_process returns, no process of the child's
// group is left alive.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace evk {

struct ProcessOptions {
  std::string cwd;                           // empty: inherit
  std::map<std::string, std::string> env;    // added to (or replacing in) the inherited env
  bool clear_env = false;                    // start from an empty environment instead
  std::string stdin_data;
  double timeout_s = 60;                     // wall clock; <= 0 means none
  uint64_t address_space_bytes = 0;          // RLIMIT_AS; 0: unlimited
  uint64_t cpu_seconds = 0;                  // RLIMIT_CPU; 0: unlimited
  uint64_t file_size_bytes = 0;              // RLIMIT_FSIZE; 0: unlimited
  uint64_t max_processes = 0;                // RLIMIT_NPROC; 0: unlimited (root ignores it)
  size_t output_cap = 1 << 20;               // bytes kept of each of stdout and stderr
  // Parent descriptors the child gets at the same numbers (close-on-exec cleared in the child).
  std::vector<int> keep_fds;
  // Called with each chunk read from the child's stdout while it runs.
  std::function<void(pid_t pid, std::string_view chunk)> on_stdout;
};

struct ProcessResult {
  int exit_code = -1;      // valid when term_signal == 0
  int term_signal = 0;     // signal that ended the process, 0 when it exited
  bool timed_out = false;  // killed by us at the wall-clock limit
  std::string out, err;
  bool out_truncated = false, err_truncated = false;
  double wall_s = 0;
  long max_rss_kb = 0;
  double cpu_s = 0;  // user + system CPU seconds of the child and its reaped threads (wait4)
  bool ok() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  // "exit code 3", "killed by SIGSEGV (segmentation fault)", "timed out after 5.0 s"
  std::string describe() const;
};

// Throws Error only when the process cannot be started at all (no such program counts as a
// failed start with exit code 127 and a message on err).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt = {});

// User + system CPU seconds so far of `pid` (all its threads); 0 when `pid` is gone.
double process_tree_cpu_s(pid_t pid);

// "SIGSEGV (segmentation fault)"
std::string signal_name(int sig);

}  // namespace evk
