// The contract between the verifier and evk-runner: a job as one JSON document on the runner's
// stdin, events as JSON lines on its stdout, and the candidate's outputs as raw records in a
// file the verifier reads back. The runner never sees the reference outputs: comparisons are
// made by the verifier, outside the candidate's address space.
//
// Records in the outputs file, in this order, each the concatenation of every output's bytes
// (ABI output order): "seed<k>" for k in 0..seeds-1, then "reuse" (seed 0's inputs written into
// the last seed's buffers: the previous call's pointers, new values) when seeds >= 2, then "post<k>" (each seed's outputs after
// the timed calls) when timing ran. The result event lists the records actually written, and
// may carry "device_peaks": {"gbps", "gflops"} of the accelerator the kernel ran on.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace evk {

struct RunnerOutputSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
};

struct RunnerJob {
  std::string library;                  // the candidate's kernel.so
  std::vector<std::string> seed_files;  // ref.safetensors per seed (only inputs are read)
  std::vector<std::string> abi;         // tensor names in ABI order: in.N, then param.<name>
  std::vector<RunnerOutputSpec> outputs;
  std::string outputs_path;             // raw output records are written here
  double after_return_delay_ms = 20;    // wait before checking for writes after return
  bool timing = true;
  double timing_budget_ms = 1000;
  int timing_max_trials = 200;
  int min_trials = 5;

  size_t record_bytes() const;
};

nlohmann::json to_json(const RunnerJob& j);
RunnerJob runner_job_from_json(const nlohmann::json& j);

// What the runner observed; decisions (pass/fail, categories) are the verifier's.
struct RunnerReport {
  bool finished = false;                // a result event was read
  std::string load_error;               // dlopen/dlsym failure
  std::string forbidden_syscall;        // the sandbox stopped the process at this call
  std::string last_phase;               // the last call started: "seed 1", "timing", ...
  int failed_rc = 0;                    // nonzero return of evk_forward
  std::string exception;                // what evk_forward threw, empty when nothing
  std::string failed_phase;
  std::vector<std::string> records;
  std::string input_mutated;            // "in.0 at index 12 during seed 0", empty when not
  std::string late_write;               // "out.0 at index 3 after seed 1 returned"
  std::optional<bool> mixed_unchanged;  // nullopt: the check did not apply
  double median_ms = 0, iqr_ms = 0, min_ms = 0;
  int trials = 0;
  // Peaks of the device the kernel ran on, measured by runners whose kernels do not run on
  // this machine's CPU (evk-runner-cuda: device copy bandwidth and an FMA loop); 0 when the
  // runner did not measure them (the CPU's peaks apply).
  double device_gbps = 0, device_gflops = 0;
  // Runners whose latency is modeled (evk-runner-ascendc) describe the model's figures here
  // ({"cycles", "ms", "clock_ghz", "launches": [...]}); null for measured latencies.
  nlohmann::json modeled;
};

// Parses the runner's stdout (one JSON event per line; lines that are not JSON objects are
// ignored: they cannot come from the runner, which writes whole lines).
RunnerReport parse_runner_output(const std::string& out);

}  // namespace evk
