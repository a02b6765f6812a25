#include "verify/runner_client.h"

#include <cmath>

#include "core/error.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

RunnerRun run_runner(const RunnerJob& job, const RunnerLimits& lim, const std::string& workdir) {
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
  // Output records (seeds, reuse, post-timing) plus slack; nothing else may be written.
  o.file_size_bytes = job.record_bytes() * (2 * job.seed_files.size() + 2) + (1 << 20);
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
