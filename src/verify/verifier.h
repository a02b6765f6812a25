// The multi-gate verifier (docs/architecture.md §6): static anti-hack, compile, correctness on
// several seeds, dynamic anti-hack, latency. The first failing gate ends the verification and
// names a category; its feedback is written for an LLM to act on.
// Invariants: nothing a candidate does (crash, hang, fork, flood, bombs) escapes its evk-runner
// process or outlives the call; verify() is safe to call from many threads at once.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "core/verdict.h"
#include "tasks/oracle.h"
#include "tasks/task.h"
#include "verify/confirm.h"
#include "verify/peaks.h"
#include "verify/trial.h"

namespace evk {

class Config;
class Workspace;

// Most bytes of a verdict's feedback (compile, mismatch, runtime, hack): a model reads it in
// the next prompt, so a flood is cut, saying so.
inline constexpr size_t kFeedbackCap = 4000;

struct VerifyOptions {
  // The target (make_backend name). No default: a run's Agent sets it from its Backend, the
  // `verify` command from --backend, so no caller verifies for "cpu" by omission.
  std::string backend;
  int seeds = 3;
  double atol = 1e-2, rtol = 1e-2, rel_norm_bound = 1e-2;  // a task's ATOL/RTOL win when set
  int threads = 1;
  double compile_timeout_s = 120, run_timeout_s = 60;
  uint64_t address_space_mb = 8192;
  double timing_budget_ms = 1000;
  int timing_max_trials = 200;
  bool use_cache = true;
  // A median under too_fast_fraction x (bytes that must move / peak bandwidth) is impossible.
  // The margin covers peaks measured on a busy machine and caches faster than measured.
  double too_fast_fraction = 0.25;
  // false only in sandbox tests: lets hostile source reach the runner (the symbol checks and
  // the sandbox still apply).
  bool static_source_gate = true;
  // false only in sandbox tests: lets a native library holding a raw `syscall` reach the
  // runner, whose seccomp filter must then stop it (backends/instruction_scan.h).
  bool instruction_scan = true;
  // The edge-case input set and the second shape (correctness a cheat cannot aim at). Off
  // only where the coder cannot meet them by construction: the offline sim writes kernels
  // specialised to the prompt's shapes (cli/context.cpp turns both off for --model sim).
  bool edge_set = true, second_shape = true;
};

// verify.* from the effective config.
VerifyOptions verify_options(const Config& c);

// The limits a candidate's runner gets: the backend's runner and environment, the options'
// wall clock, threads and address space (at least the runtime's minimum, where the backend
// limits it at all). Verification and confirmation alike.
RunnerLimits runner_limits(const RunnerSpec& spec, const VerifyOptions& opt);

// The task's tolerance where its file sets one (ATOL/RTOL), else the options'.
Tolerance task_tolerance(const Reference& r, const VerifyOptions& opt);

// Every field of `o` that can change a verdict (all but use_cache), for the verdict cache key.
// A field added to VerifyOptions must be added here (verdict_cache_test changes each one).
nlohmann::json verdict_key_options(const VerifyOptions& o);

class Verifier {
 public:
  Verifier(Workspace& ws, OracleOptions oracle);

  Verdict verify(const TaskInfo& task, const std::string& source, const VerifyOptions& opt);

  // Measured once per workspace and thread count, then cached (database and memory).
  MachinePeaks peaks();
  MachinePeaks peaks(int threads);
  // Measures the CPU's peaks again and raises the stored ones; once per process and thread
  // count (later calls answer the figures of the first).
  MachinePeaks remeasure_peaks(int threads);

  // Re-times two feasible kernels of `task` interleaved (verify/confirm.h): is `candidate`
  // truly faster than `best`? Never throws for a kernel's behaviour (the answer's `ran` is
  // false with the reason); UsageError when this machine cannot jail candidates. Cached in the
  // workspace like verdicts (opt.use_cache).
  Confirmation confirm(const TaskInfo& task, const std::string& best, const std::string& candidate,
                       const VerifyOptions& opt, const ConfirmOptions& copt = {});

  const OracleOptions& oracle_options() const { return oracle_; }

 private:
  std::vector<Reference> references(const TaskInfo& task, int seeds);
  Confirmation measure_confirmation(const TaskInfo& task, const std::string& best,
                                    const std::string& candidate, const VerifyOptions& opt,
                                    const ConfirmOptions& copt);
  ExtraSets extra_sets(const TaskInfo& task, int seeds);
  MachinePeaks judging_peaks(const TrialOutcome& out, const Reference& r0, const VerifyOptions& opt);

 public:
  // Everything that can change a verdict: the task, the source, the oracle's options and
  // version, the verifier's protocol version, every VerifyOptions field except use_cache, and
  // the backend's toolchain (verify/toolchain.h: this build, the backend's runner, the
  // compiler, every file under the compile command's include folders).
  std::string cache_key(const TaskInfo& task, const std::string& source,
                        const VerifyOptions& opt) const;
  // The same with the backend made already (verify() has it); null: no backend by that name.
  std::string cache_key(const TaskInfo& task, const std::string& source, const VerifyOptions& opt,
                        const Backend* backend) const;

 private:

  Workspace& ws_;
  OracleOptions oracle_;
  std::mutex db_mu_;                                    // guards ws_.db()
  std::mutex ref_mu_;                                   // guards ref_locks_
  std::map<std::string, std::unique_ptr<std::mutex>> ref_locks_;  // one per (task, seed)
  std::mutex peaks_mu_;
  std::map<int, MachinePeaks> peaks_;
  std::set<int> remeasured_;
};

// A pool for `--jobs N`: verifies every (task, source) pair with N at once; results in input
// order. An exception from one job becomes an `infra` verdict for that job.
std::vector<Verdict> verify_all(Verifier& v,
                                const std::vector<std::pair<const TaskInfo*, std::string>>& jobs,
                                const VerifyOptions& opt, int jobs_n);

}  // namespace evk
