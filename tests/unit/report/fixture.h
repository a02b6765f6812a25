// A run built by hand the way the agent writes one: a workspace in a temp folder, the run in
// the runs index, its attempts in the run's own database and its memory (the real Memory, so
// Q updates and provenance are exactly what the agent records), committed attempt by attempt.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/temp_dir.h"
#include "memory/memory.h"
#include "run/run_store.h"

namespace evk::testing {

// Code of the first relu attempt: characters that must be escaped in HTML.
inline const char* kHostileCode =
    "#include <evokernel/kernel_abi.h>\n"
    "// </pre></details><script>alert('x')</script> & \"quotes\"\n"
    "int evk_forward(const evk_tensor* in, int32_t n, evk_tensor* out, int32_t m) {\n"
    "  for (int64_t i = 0; i < 10 && n > 0; ++i) {}\n  return 0;\n}\n";

// A test's private folder, removed with what is in it (core/temp_dir.h).
struct TempDir : evk::TempDir {
  TempDir() : evk::TempDir("evk-report-") {}
};

struct BuiltRun {
  int64_t id = 0;
  int64_t item_guard = 0, item_simd = 0, item_trace = 0;
  double q_guard_before = 0;  // draft Q of item_guard before the run (imported memory)
};

inline Verdict failed(Category category, bool compiled, const std::string& feedback) {
  Verdict v;
  v.feasible = false;
  v.category = category;
  v.compiled = compiled;
  v.feedback = feedback;
  v.gate = compiled ? Gate::Correctness : Gate::Compile;
  const bool hack = category == Category::HackStatic;
  v.gates = {{Gate::StaticHack, !hack, hack ? feedback : ""},
             {Gate::Compile, compiled, compiled ? "" : feedback}};
  return v;
}

inline Verdict ok(double ms, double eager_ms, double roofline) {
  Verdict v;
  v.feasible = true;
  v.category = Category::Ok;
  v.compiled = true;
  v.gate = Gate::Latency;
  v.latency_ms = ms;
  v.latency_iqr_ms = ms * 0.02;
  v.timed_calls = 50;
  v.eager_ms = eager_ms;
  v.roofline_fraction = roofline;
  v.gbps = 10 * roofline;
  v.gates = {{Gate::StaticHack, true, ""},
             {Gate::Compile, true, ""},
             {Gate::Correctness, true, "3 seeds ok"},
             {Gate::DynamicHack, true, ""},
             {Gate::Latency, true, "median of 50 calls"}};
  return v;
}

// Three tasks: relu (level 1) solved at attempt 2 then refined 2.0 -> 1.0 -> 0.5 ms (eager 4 ms);
// matmul_square (level 1, fitted) solved at attempt 3, refined 10 -> 8 ms (eager 5 ms, slower
// than eager); softmax_big (level 2) never solved: no_code, compile, mismatch, runtime_crash.
// Memory alpha 0.5; item_guard arrives with one earlier (imported) update.
BuiltRun build_run(Workspace& ws, bool simulated = true, uint64_t seed = 7);

}  // namespace evk::testing
