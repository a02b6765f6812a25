#include "verify/runner_client.h"

#include <cmath>

#include "core/error.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

RunnerRun run_runner(const RunnerJob& job, const RunnerLimits& lim, const std::string& workdir,
                     const RunnerHooks& hooks) {
  ProcessOptions o;
  o.cwd = workdir;
  o.clear_env = true;  // nothing of ours (workspace paths, keys) is visible to the candidate
  o.env["OMP_NUM_THREADS"] = std::to_string(lim.threads);
  o.env["OMP_THREAD_LIMIT"] = std::to_string(lim.threads);  // omp_set_num_threads cannot exceed it
  o.env["OMP_DYNAMIC"] = "false";
  // PoCL's pthread device (opencl backend) sizes its worker pool from this, not from OpenMP.
  o.env["POCL_MAX_PTHREAD_COUNT"] = std::to_string(lim.threads);
  o.env["LC_ALL"] = "C";
  for (const auto& [k, v] : lim.env) o.env[k] = v;
  o.stdin_data = to_json(job).dump();
  o.timeout_s = lim.timeout_s;
  o.address_space_bytes = lim.address_space_mb << 20;  // 0 leaves it unlimited
  o.cpu_seconds = static_cast<uint64_t>(std::ceil(lim.timeout_s * lim.threads)) + 5;
  // Outputs go to shared memory: the runner writes no file.
  o.file_size_bytes = 1 << 20;
  o.keep_fds = hooks.keep_fds;
  o.on_stdout = hooks.on_stdout;
  o.max_processes = 4096;  // the seccomp filter is what stops fork; this bounds non-root users
  o.output_cap = lim.output_cap;
  RunnerRun r;
  fs::path exe = runner_path();
  if (lim.executable != exe.filename()) exe = exe.parent_path() / lim.executable;
  if (!fs::exists(exe))
    throw Error("the runner " + exe.string() + " is missing: build it (make build) or install it "
                "beside evk-runner");
  r.process = run_process({exe.string()}, o);
  r.report = parse_runner_output(r.process.out);
  return r;
}

}  // namespace evk
