// The contract between the verifier (the parent, the only judge) and evk-runner (the jailed
// process that loads the candidate). The runner is an executor of the parent's commands; what
// it says is a claim the parent checks.
//
// Job: one JSON document on the runner's stdin (to_json(RunnerJob)). It names three
// descriptors the runner inherits (ProcessOptions::keep_fds):
//   inputs_fd   a sealed memfd holding every input set (inputs and parameters, ABI order, each
//               tensor at the offset the job gives); mapped read-only. Reference outputs are
//               never in it: the runner's memory holds inputs only.
//   outputs_fd  a memfd of `slots` slots of `slot_bytes`; call outputs are written straight
//               into the slot the parent names (output i at output_offsets(set)[i]). The
//               parent reads the slots in place (no file round trip) and poisons a slot before
//               it names it.
//   control_fd  a stream socket: one JSON command per line in, one JSON reply per line out.
// Commands (parent -> runner) and replies (runner -> parent), in this order only:
//   (start)                                   -> {"ready":true} once the library is loaded and
//                                                the sandbox is on (or a load_error event on
//                                                stdout and exit)
//   {"op":"load","group":g,"set":s}           -> {"ok":true}: group g's input buffers hold set
//                                                s (same addresses when the shapes match: only
//                                                differing bytes are copied)
//   {"op":"run","calls":[[g,slot],...]}       -> {"go":true} just before the first call, then
//                                                {"done":true,"ms":[..],"rc":0,"exception":"",
//                                                "failed_call":-1,"mutated":""} after the last
//   {"op":"quit"}                             -> {"result":true,"calls":N} and exit 0
// The parent times each run from sending it to the arrival of "done" (the authority);
// the runner's per-call "ms" are a claim that must fit inside that interval. Any reply out of
// this order, malformed, unsolicited, or written after the quit reply is hack_dynamic.
// stdout carries only {"event":"load_error"} and {"event":"forbidden_syscall"} lines (a
// "result" event there is forged: hack_dynamic); stderr is for diagnostics.
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

// One tensor of a set in the inputs region.
struct RunnerTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t offset = 0, nbytes = 0;
};

// One input set: its tensors (ABI order) and the outputs it produces (shapes may differ
// between sets: the second-shape set).
struct RunnerSet {
  std::vector<RunnerTensor> inputs;
  std::vector<RunnerOutputSpec> outputs;
  size_t record_bytes() const;  // bytes of a slot this set's outputs need (64-byte aligned)
};

// Byte offset of each output inside a slot.
std::vector<size_t> output_offsets(const RunnerSet& s);

constexpr size_t kRunnerAlign = 64;

struct RunnerJob {
  std::string library;             // the candidate's kernel.so
  std::vector<std::string> abi;    // tensor names in ABI order: in.N, then param.<name>
  std::vector<RunnerSet> sets;
  int inputs_fd = -1, outputs_fd = -1, control_fd = -1;
  // A runner whose kernel's API calls are replayed (evk-runner-ascendc): a memfd of
  // trace_bytes it records each call's API trace into (runner/ascendc/trace.h); -1: none.
  int trace_fd = -1;
  uint64_t trace_bytes = 0;
  uint64_t inputs_bytes = 0;
  uint64_t slot_bytes = 0;
  int slots = 0;
};

nlohmann::json to_json(const RunnerJob& j);
RunnerJob runner_job_from_json(const nlohmann::json& j);

// What the runner's stdout said (events other than these are ignored; lines that are not JSON
// objects are ignored: a kernel may print).
struct RunnerReport {
  std::string load_error;         // dlopen/dlsym failure
  std::string forbidden_syscall;  // the sandbox stopped the process at this call
  int forged_results = 0;         // "result" events on stdout: the runner never writes one
  // Peaks of the device the kernel ran on, reported by runners whose kernels do not run on this
  // machine's CPU (evk-runner-cuda); 0 when the CPU's peaks apply.
  double device_gbps = 0, device_gflops = 0;
  // Runners whose latency is modeled (evk-runner-ascendc) describe the model's figures here
  // ({"cycles", "ms", "clock_ghz", "launches": [...]}); null for measured latencies.
  nlohmann::json modeled;
};

RunnerReport parse_runner_output(const std::string& out);

// One control-channel line as the parent reads it: the reply object when the line is a JSON
// object holding `expect`, nullopt for anything else (not JSON, another reply, nested too deep).
std::optional<nlohmann::json> parse_runner_reply(const std::string& line, const char* expect);

// The fields of a "done" reply. Error naming the field when one has the wrong type or an
// integer out of range (a claim the parent then counts as a protocol violation).
struct RunnerDone {
  std::vector<double> ms;  // per-call claims
  int rc = 0;
  std::string exception;
  int failed_call = -1;
  nlohmann::json modeled;  // modeled runners' figures; null otherwise
};
RunnerDone parse_runner_done(const nlohmann::json& done);

// The poison the parent fills a slot with before naming it: quiet NaN for floating outputs,
// the byte 0xA5 for integer ones (src/verify/compare.h recognises both as "never written").
void poison_bytes(DType t, uint8_t* p, size_t nbytes);

}  // namespace evk
