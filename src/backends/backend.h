// A Backend is one compilation target (cpu, opencl, cuda, ascendc): its source language, its
// static anti-hack rules, how to compile a candidate, how the sandboxed runner is started on
// the result, and its knowledge bundle under knowledge/<name>/. What differs by name alone
// (the runner executable, the devices its jail passes through, how latency is obtained) is
// the backend's row in the registry (registry.h), which make_backend and backend_names read:
// adding a backend = a folder here + knowledge/<name>/ + one row (docs/adding-a-backend.md).
// Invariant relied on by the verifier: compile() never throws for a bad candidate (that is a
// failed CompileResult); static_check() and check_artifact() are pure functions of their input.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace evk {

struct Reference;

struct CompileResult {
  bool ok = false;
  std::string feedback;              // the first errors, trimmed, paths made relative
  std::filesystem::path artifact;    // the built library when ok
  double wall_s = 0;
  std::string log;                   // full compiler output (capped)
  // What the compiler says about a successful build worth showing (e.g. ptxas registers,
  // spills and shared memory per kernel); the verifier keeps it in the verdict's metrics.
  std::string notes;
};

// How the verifier starts the sandboxed runner on this backend's artifacts.
struct RunnerSpec {
  std::string executable = "evk-runner";     // looked up beside evk-runner (runner_path())
  std::map<std::string, std::string> env;    // added to the runner's clean environment
  // Passed through the jail: /dev entries whose names start with one of device_nodes, and the
  // read-only system_dirs that exist (the registry row's).
  std::vector<std::string> device_nodes, system_dirs;
  // RLIMIT_AS for the runner: at least this many MiB (PoCL needs about 1 GiB); 0 = none at
  // all (the CUDA runtime reserves far more virtual memory than it uses).
  uint64_t min_address_space_mb = 1;
  bool limit_address_space = true;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;             // "cpu"
  virtual std::string source_filename() const = 0;  // "kernel.cpp"
  virtual std::string language() const = 0;         // "C++17 with OpenMP", for prompts
  // nullopt when clean, else feedback naming the forbidden construct and its line.
  virtual std::optional<std::string> static_check(const std::string& source) const = 0;
  // Compiles `source` into workdir (which the caller owns and removes) within timeout_s.
  virtual CompileResult compile(const std::string& source, const std::filesystem::path& workdir,
                                double timeout_s) const = 0;
  // The built library's symbols: nullopt when it exports only the ABI and neither defines
  // libc symbols nor imports forbidden ones, else feedback naming the symbol.
  virtual std::optional<std::string> check_artifact(const std::filesystem::path& artifact) const = 0;
  // The exact compile command, for prompts and reports.
  virtual std::string compile_command() const = 0;
  std::filesystem::path knowledge_dir() const;      // data_root()/knowledge/<name>
  // The runner for artifacts built in `workdir` (the candidate's private folder). The default
  // is the registry row's runner, device nodes and system folders; a backend that needs an
  // environment or limits starts from it.
  virtual RunnerSpec runner(const std::filesystem::path& workdir) const;
  // nullopt when this machine can run the backend's kernels, else why not and what to do; the
  // verifier then stops after the compile and static gates with category `no_device`.
  virtual std::optional<std::string> device_unavailable() const { return std::nullopt; }
  // Backends whose latency is modeled (ascendc: a cycle model, not a clock) model the PyTorch
  // eager baseline on the same machine; nullopt: the oracle's measured eager time applies.
  struct ModeledEager {
    double ms = 0;
    // What the time rests on, for verdicts, prompts and reports: "library kernels", "library
    // kernels; roofline for conv2d", "roofline"; and each fallen-back operator with its reason.
    std::string basis;
    std::vector<std::string> fallback;
  };
  virtual std::optional<ModeledEager> modeled_eager(const Reference&) const { return std::nullopt; }
  // The eager time a speed-up divides by: the modeled one where there is one, else the
  // oracle's measured PyTorch eager.
  double eager_ms_for(const Reference& r) const;
  // Whether the runner's per-call times come from a deterministic cost model (the verifier then
  // takes them as the latency: no wall-clock timing, no confirmation; TrialOptions::modeled):
  // the registry row's timing is Timing::Modeled.
  bool modeled_latency() const;
  // What a prompt says of the CPUs the kernel is timed on: the candidate's threads are pinned
  // to `threads` CPUs, and a model that cannot see that builds for parallelism it is not given.
  // Empty where the timed work is not on the CPU (a GPU, a cycle model).
  virtual std::string timing_note(int threads) const;
};

// The registry row's Backend; UsageError listing the known backends when there is none.
std::unique_ptr<Backend> make_backend(const std::string& name);
std::vector<std::string> backend_names();  // the registry's, sorted
// "ascendc|cpu|cuda|opencl", for --help texts.
std::string backend_help();

}  // namespace evk
