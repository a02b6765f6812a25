// The parent's side of one evk-runner process (the protocol is src/verify/runner_protocol.h):
// it builds the shared regions (a sealed memfd of input sets, a memfd of output slots it reads
// in place), starts the runner on a thread of its own, and drives it command by command over
// the control socket, timestamping replies as they arrive. Every reply is checked against the
// one the protocol allows next; the first deviation is kept as violation() and ends the
// session. Not thread-safe: one verification drives one session.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "verify/runner_client.h"

namespace evk {

// One input set as the parent holds it: tensors in ABI order and the outputs they produce.
struct SessionSet {
  std::vector<const Tensor*> inputs;
  std::vector<RunnerOutputSpec> outputs;
};

class RunnerSession {
 public:
  // `traced`: the runner records each call's API trace into a region the parent reads
  // (evk-runner-ascendc; last_trace()).
  RunnerSession(const std::string& library, const std::vector<std::string>& abi,
                const std::vector<SessionSet>& sets, int slots, bool traced = false);
  ~RunnerSession();
  RunnerSession(const RunnerSession&) = delete;
  RunnerSession& operator=(const RunnerSession&) = delete;

  void start(const RunnerLimits& lim, const std::string& workdir);

  // Each returns false when the runner ended or broke the protocol (see violation()).
  bool wait_ready();
  bool load(int group, int set);

  struct Batch {
    bool ok = false;                 // a well-formed "done" and "checked" arrived
    double wall_ms = 0;              // from sending "run" to the arrival of "done": the authority
    std::vector<double> claimed_ms;  // the runner's per-call clock: a claim
    int rc = 0;
    std::string exception;
    int failed_call = -1;
    std::string mutated;
    nlohmann::json modeled;  // a cost model's figures (evk-runner-ascendc); null otherwise
  };
  // One call: the group whose buffers are the inputs, the slot its outputs go to, and whether
  // the parent poisons the slot's output bytes for the group's set first (the caller decides:
  // a slot whose last call was on a set with other outputs needs none, see trial.cpp).
  struct Call {
    int group = 0, slot = 0;
    bool poison = true;
  };
  // Poisons the slots so marked, then runs the calls back to back.
  Batch run(const std::vector<Call>& calls, const std::vector<int>& set_of_group);
  bool quit();

  // Waits for the runner to end; checks that nothing came after the final reply. Rethrows
  // what starting the runner threw (a missing runner, no jail: the verifier's problem).
  RunnerRun finish();

  const uint8_t* slot(int k) const { return out_ + static_cast<size_t>(k) * job_.slot_bytes; }
  const RunnerSet& set(int s) const { return job_.sets[static_cast<size_t>(s)]; }
  const RunnerJob& job() const { return job_; }
  const std::string& violation() const { return violation_; }
  // The API trace of the last call the runner made (a claim: the kernel's process wrote it);
  // empty when the session is not traced or the region holds none.
  std::vector<uint8_t> last_trace() const;
  bool ended() const { return finished_.load(); }
  // CPU seconds of the runner's process tree now; < 0 when its pid is not known.
  double cpu_s() const;

 private:
  std::optional<nlohmann::json> reply(const char* expect);
  void drain_after_quit();

  RunnerJob job_;
  int ctl_ = -1;  // the parent's end of the control socket
  int child_ctl_ = -1, in_fd_ = -1, out_fd_ = -1, trace_fd_ = -1;
  const uint8_t* trace_ = nullptr;
  uint8_t* out_ = nullptr;
  size_t out_bytes_ = 0;
  std::string buf_;
  std::string violation_;
  bool quit_sent_ = false;
  std::thread th_;
  std::atomic<bool> finished_{false};
  std::atomic<pid_t> pid_{0};
  RunnerRun run_;
  std::exception_ptr start_error_;
  std::chrono::steady_clock::time_point last_read_;
};

}  // namespace evk
