// The eager baseline every "x eager" is measured against, as the oracle's own process runs it:
// the interpreter, the torch version, the BLAS library torch's sgemm_ binds to (read from the
// process, not assumed), its thread count, ATen's CPU capability, and the rate of a float32
// GEMM. Debian's torch calls BLAS through the system's libblas.so.3 alternative, which on a
// fresh machine is the reference BLAS, 20-30x slower on GEMMs than an optimised one: every
// speed-up over eager of a task with a matmul in it would be inflated as much.
//
// A probe costs a Python start and a GEMM (about a second), so its result is cached in the
// workspace and in the process under a fingerprint of what decides the libraries the oracle
// loads: the interpreter, the loader's cache and the libblas/liblapack alternatives, the
// package database, the interpreter's site-packages, and the loader's and torch's environment
// variables. Each reference records its own baseline too (meta.json "baseline"), and one that
// does not match the probe's is refused: a change the fingerprint misses costs one failed
// reference, never a figure measured under another BLAS.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tasks/oracle.h"

namespace evk {

class Workspace;

struct EagerBaseline {
  std::string python, torch_version;
  std::string blas_library;    // the file sgemm_ binds to, as /proc/self/maps names it
  std::string blas_name;       // "OpenBLAS 0.3.21 (Zen kernels)", "reference BLAS (netlib)"
  std::string cpu_capability;  // ATen's dispatch level: "AVX2", "AVX512", "DEFAULT"
  int threads = 1;             // torch's
  int blas_threads = 0;        // the BLAS's own count (0: it cannot say)
  std::vector<int> cpus;       // the CPUs the probe could run on
  int gemm_n = 0;              // the probe's GEMM: n x n x n, float32
  double gemm_gflops = 0;      // its rate: the better of wall time and CPU time x threads

  // What a reference's eager time depends on besides the task and the thread count (the
  // interpreter, torch, the BLAS and its name, the CPU capability): part of the reference
  // cache key.
  std::string key() const;
  // "PyTorch 1.13.0a0 eager, OpenBLAS 0.3.21 (Zen kernels), 1 thread, ATen AVX2"
  std::string describe() const;
  nlohmann::json to_json() const;
  static EagerBaseline from_json(const nlohmann::json& j);  // Error when malformed
};

// The baseline of `opt.python` at `opt.threads`: cached, else probed (`evk_oracle.py
// baseline`, pinned like a reference). `fresh`: probe again and replace the cached one.
// Thread-safe. Error when the interpreter cannot run the probe.
EagerBaseline eager_baseline(Workspace& ws, const OracleOptions& opt, bool fresh = false);

// Drops the cached probe of `opt` (a reference found another baseline than it said).
void forget_eager_baseline(Workspace& ws, const OracleOptions& opt);

// The least fraction of the machine's FMA peak a healthy baseline's GEMM reaches. The
// reference BLAS reaches 1-5%, OpenBLAS 40-90% (README, "A fair baseline"): 10% sits between
// with a margin of 2x or more from both.
inline constexpr double kMinGemmFraction = 0.10;

struct BaselineHealth {
  double fraction = 0;  // gemm_gflops / fma_gflops (0: the peak is unknown)
  bool ok = false;
  std::string problem;  // when not ok: one line naming the library and the fix
};
BaselineHealth baseline_health(const EagerBaseline& b, double fma_gflops);

// What a run records of its baseline (its options' "baseline"): the baseline, the FMA peak,
// the GEMM's fraction of it, whether it was below kMinGemmFraction and let through by
// --allow-slow-baseline, and whether the run's verdicts use a modeled eager time instead.
nlohmann::json baseline_record(const EagerBaseline& b, const BaselineHealth& h, double fma_gflops,
                               bool modeled, bool allowed_slow);
// The line printed beside a run's speed-ups (results, report, show, export): "eager baseline:
// PyTorch 1.13.0a0 eager, OpenBLAS 0.3.21 (Zen kernels), 1 thread, ATen AVX2; GEMM 86.4
// GFLOP/s, 54% of the FMA peak", SLOW and why where it was let through; "not recorded" for a
// record that is null (a run from before records were kept).
std::string baseline_line(const nlohmann::json& record);
// Whether the record says the run started below the floor (--allow-slow-baseline).
bool baseline_slow(const nlohmann::json& record);

}  // namespace evk
