// The parent's side of the Ascend C API-trace replay (runner/ascendc/trace.h): the traces a
// traced runner recorded for its calls are replayed by its backend's replay process
// (BackendRow::replay: evk-ascendc-replay), a jailed process that links the emulator and never
// any kernel code, on the verification's own inputs. What the replay computes, outputs and
// modeled cycles, is the verdict's; the runner's are not.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "verify/runner_client.h"

namespace evk {

// One call to replay: the input set it ran on and the trace the runner recorded for it.
struct ReplayCall {
  int set = 0;
  std::vector<uint8_t> trace;
};

struct ReplayResult {
  std::string error;          // "[TRACE_...] ...": the trace was rejected
  double cycles = 0, ms = 0;  // the replay's cost model
  // {"cycles","ms","clock_ghz","launch_us","launches":[{"kernel","block_dim","cycles"}]}
  nlohmann::json modeled;
  std::vector<uint8_t> outputs;  // a slot (output i at output_offsets(set)[i])
};

// The replay cannot run at all (its executable is not built or not installed): the machinery's
// fault, never the kernel's, so the caller reports it as infra.
struct ReplayUnavailable : Error {
  using Error::Error;
};

// Replays `calls` against `job`'s sets and inputs (its inputs_fd must be open). Throws
// ReplayUnavailable when there is no replay to run; throws Error when the replay process fails
// as a whole (crash, timeout, a malformed report): the trace may be what broke it, so the
// caller treats that as a rejected trace.
std::vector<ReplayResult> replay_traces(const RunnerJob& job, const std::vector<ReplayCall>& calls,
                                        RunnerLimits lim, const std::string& workdir);

}  // namespace evk
