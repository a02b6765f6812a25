// The probe sequence every runner speaks (src/verify/runner_protocol.h), written once for
// evk-runner, evk-runner-cuda and evk-runner-ascendc: the "started" event, the parent's input
// and output regions mapped, the backend's own set-up (a device context, its peaks: the
// runner's code, before the filter), the sandbox, the library loaded and its evk_forward
// found, the backend's check after loading, "ready", then the parent's commands ("load",
// "run", "quit") until it quits or goes away. A runner derives from it and supplies what
// differs: where a group's buffers live (load) and how a batch of calls is made and timed
// (run_calls). It decides nothing: the parent judges.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "channels.h"
#include "evokernel/kernel_abi.h"
#include "verify/runner_protocol.h"

namespace evk::runner {

typedef int (*evk_forward_fn)(const evk_tensor*, int32_t, evk_tensor*, int32_t);

class HarnessBase {
 public:
  HarnessBase(const RunnerJob& job, int report_fd);
  virtual ~HarnessBase() = default;
  HarnessBase(const HarnessBase&) = delete;
  HarnessBase& operator=(const HarnessBase&) = delete;

  // Returns the process exit code.
  int run();

 protected:
  // The runner's own set-up before the sandbox; "" or a load error for the report.
  virtual std::string prepare() { return ""; }
  // Puts the sandbox on before the library is loaded (its global constructors are candidate
  // code too); "" or a load error. The default is runner/sandbox.h's whole sequence.
  virtual std::string sandbox();
  // After the library loaded (a device context intact, say); throws Error when not.
  virtual void after_load() {}
  // How the answer to a missing evk_forward tells the model to export it.
  virtual std::string export_hint() const { return "extern \"C\""; }
  // "load": set `set` into group `group`'s buffers (same addresses while the shapes stay).
  virtual void load(int group, int set) = 0;
  // "run": the calls [[group, slot], ...], replied with "go", "done" and "checked".
  virtual void run_calls(const nlohmann::json& calls) = 0;

  // The job's input set `s` (a "load" argument); throws Error when there is none.
  const RunnerSet& input_set(int s) const;
  // The bytes of input tensor `t` in the inputs region.
  const uint8_t* source(const RunnerTensor& t) const;
  // The ABI name of input `i` ("in.0").
  std::string input_name(size_t i) const;
  int load_error(const std::string& what);

  const RunnerJob& job_;
  Reporter events_, ctl_;
  int rep_fd_;
  Mapping* in_ = nullptr;
  Mapping* out_ = nullptr;
  evk_forward_fn fn_ = nullptr;
  int64_t calls_ = 0;

 private:
  CommandReader cmds_;
};

// A runner's job mode, after its options: the job read as JSON on stdin, the verdict channel
// kept on a private copy of the real stdout and fd 1 pointed at stderr before the candidate is
// loaded (a kernel that prints cannot corrupt the report), then `harness(job, report_fd)`.
// Returns the exit code (3, with `program: error: ...` on stderr, when the job cannot run).
int serve_job(const char* program, int (*harness)(const RunnerJob& job, int report_fd));

// Whether buffers (each with .shape and .dtype, held or owned) still fit `tensors`: a group
// or a slot keeps its buffers, and so its addresses, while the shapes stay.
template <class T>
const T& deref(const T& x) { return x; }
template <class T>
const T& deref(const std::unique_ptr<T>& x) { return *x; }
template <class Buffers, class Tensors>
bool same_layout(const Buffers& bufs, const Tensors& tensors) {
  if (bufs.size() != tensors.size()) return false;
  for (size_t i = 0; i < bufs.size(); ++i)
    if (deref(bufs[i]).shape != tensors[i].shape || deref(bufs[i]).dtype != tensors[i].dtype) return false;
  return true;
}

// One evk_forward call: its return code, and in `exception` the text of what it threw (a
// kernel's exception is its failure, not the runner's).
int call_forward(evk_forward_fn fn, std::vector<evk_tensor>& in, std::vector<evk_tensor>& out,
                 std::string& exception);

// "in.0 at element 12": where `now` first differs from `was` (n bytes of dtype t); "" when
// they are equal.
std::string mutation_text(const std::string& name, const uint8_t* now, const uint8_t* was, size_t n,
                          DType t);

}  // namespace evk::runner
