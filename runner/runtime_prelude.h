// What the runner does for a device runtime before the sandbox closes, on behalf of the
// candidate but with no candidate code running: OpenCL's platform discovery (the ICD loader
// and PoCL read /etc/OpenCL, /sys and /proc once, then never again), and the file policy for
// runtimes that keep reading files while kernels run (PoCL re-reads its kernel cache and
// dlopens the compiled work-group functions at the first launch).
//
// Driven by the environment the verifier gives the runner (RunnerSpec.env), read before any
// candidate code runs:
//   EVK_RUNNER_OPENCL=1        discover OpenCL platforms and devices now
//   EVK_RUNNER_FS_READ=A:B     with Landlock, only these trees may be read ...
//   EVK_RUNNER_FS_WRITE=C      ... and only this one written (the candidate's PoCL cache)
// Without EVK_RUNNER_FS_*: default_file_policy, where the kernel has Landlock.
#pragma once
#include <string>
#include <vector>

namespace evk::runner {

struct FilePolicy {
  std::vector<std::string> read_only;
  std::vector<std::string> read_write;
  bool active() const { return !read_only.empty() || !read_write.empty(); }
};

FilePolicy file_policy_from_env();

// Without a runtime's own policy: reading the system trees, /etc, /dev, /proc, /sys and the
// candidate `library` (not the folder around it), writing nothing.
FilePolicy default_file_policy(const std::string& library);

// "" when every requested runtime is ready, else what failed and what to do.
std::string prepare_runtimes();

// Restricts this process (and its threads created later) to `p` with Landlock. Throws Error
// naming the missing kernel feature when Landlock is unavailable: the runner never falls back
// to an open file system.
void restrict_files(const FilePolicy& p);

// The Landlock ABI version of the running kernel; 0 when Landlock is unavailable.
int landlock_abi();

}  // namespace evk::runner
