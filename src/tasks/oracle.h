// The oracle client: runs oracle/evk_oracle.py (PyTorch through /usr/bin/python3) in a
// subprocess with a time limit and caches its results in the workspace under cache/refs/,
// keyed by the task (id and content hash), the oracle's own hash (oracle_hash), the fitting
// bounds (max elements, max GFLOP), the thread count, the seed (or, for extra input sets, the
// seed and variant counts) and the eager baseline (tasks/baseline.h: torch, its BLAS, the CPU
// capability). A reference is timed as a kernel is: pinned to CPUs of its own, with torch,
// OpenMP and the BLAS on the same thread count.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "tasks/task.h"

namespace evk {

class Workspace;
class Config;

struct OracleOptions {
  int64_t max_elements = 0;
  double max_gflop = 0;  // bound on one forward's FLOPs when fitting (0: none)
  int threads = 1;
  int timing_runs = 20;
  double timeout_s = 300;
  std::string python = "/usr/bin/python3";
};

// tasks.max_elements, verify.threads, oracle.* from the effective config.
OracleOptions oracle_options(const Config& c);

// The environment that gives the oracle's torch, OpenMP and BLAS `threads` threads.
std::map<std::string, std::string> oracle_thread_env(int threads);

// Short hash of oracle/evk_oracle.py: part of every cache key, so a changed oracle recomputes.
std::string oracle_hash();

// Why a task has no reference: the oracle found its file broken (and says why), a step ran past
// oracle.timeout_s, or the oracle process failed otherwise (killed, out of memory).
struct OracleError : Error {
  enum class Why { Broken, Timeout, Failed };
  OracleError(Why w, const std::string& what) : Error(what), why(w) {}
  Why why;
};
// "broken file", "oracle timeout", "no reference": the head of a skipped task's reason.
const char* why_name(OracleError::Why w);

// Produces (or reuses) the reference of a task for a seed. Throws OracleError with the task's
// own reason when no reference can be made.
Reference oracle_reference(Workspace& ws, const TaskInfo& task, int seed,
                           const OracleOptions& opt);

// The verifier's extra input sets of a task (oracle/evk_oracle.py `sets`), computed once per
// workspace and cached beside the seeds' references: "edge" (edge values), "shape2" (other,
// odd extents), "variant<k>" (a seed with a few random positions changed). A kind the task
// cannot have (no floating inputs, no size constant to change) is left out; `skipped` says why.
// Each set is at least a reference's work and gets oracle.timeout_s (at least 60 s) of its own.
struct ExtraSets {
  std::vector<std::pair<std::string, Reference>> sets;
  std::map<std::string, std::string> skipped;
};
// Variant sets the verifier times with (and a run prepares before its first attempt).
constexpr int kVariantSets = 2;
ExtraSets oracle_extra_sets(Workspace& ws, const TaskInfo& task, int seeds, int variants,
                            const OracleOptions& opt);

// Parses meta.json into a Reference (used by the runner side too).
Reference load_reference(const std::filesystem::path& dir);

}  // namespace evk
