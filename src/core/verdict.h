// The verifier's answer about one candidate. Shared by verify/ (which produces it), agent/
// and memory/ (which learn from it) and report/ (which shows it).
#pragma once
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnosis.h"

namespace evk {

// Gates in the order they run (docs/architecture.md §6). `gate` in a Verdict is the last gate
// reached: the failing one, or Gate::Latency when feasible.
enum class Gate { StaticHack = 1, Compile = 2, Correctness = 3, DynamicHack = 4, Latency = 5 };

struct GateOutcome {
  Gate gate = Gate::StaticHack;
  bool passed = false;
  std::string detail;   // one line
};

// What a verdict says about the candidate: Ok when feasible, else why not. Strings only at the
// edges (database, JSON, prompts, reports), through category_name / category_from.
enum class Category {
  Ok,
  NoCode,        // the answer held no kernel source
  HackStatic,    // a static rule (forbidden call, directive, symbol)
  Compile,       // the compiler failed, or the library did not load
  RuntimeCrash,  // a signal, an exception, a non-zero return, a flood
  Timeout,       // the wall clock ran out
  Mismatch,      // an output differs from the reference beyond the tolerance
  HackDynamic,   // a check in the runner caught the kernel cheating
  TooFast,       // faster than the machine's peaks allow for the bytes it must move
  Infra,         // the verification machinery failed
  NoDevice,      // no device here to run on
};

struct Verdict {
  bool feasible = false;
  Gate gate = Gate::StaticHack;
  Category category = Category::Ok;
  std::string feedback;        // what an LLM can act on (trimmed compiler errors, mismatch stats)
  std::vector<GateOutcome> gates;
  bool compiled = false;       // reached past the compile gate
  double latency_ms = 0;       // median of timed calls (feasible only)
  double latency_iqr_ms = 0;
  int timed_calls = 0;
  double gbps = 0, gflops = 0;          // achieved
  double roofline_fraction = 0;         // achieved / attainable at the machine's peaks
  double eager_ms = 0;                  // PyTorch eager baseline of the same task
  double wall_s = 0;                    // time the verification took
  bool cached = false;
  Diagnosis diagnosis;  // what bounds it (feasible only; verify/diagnose.h)
  nlohmann::json metrics = nlohmann::json::object();  // anything else (max_abs_err, ...)
};

// `infra` (the verification machinery failed) and `no_device` (no device here to run on) say
// nothing about the kernel: never a reward, never a memory item, never cached.
bool is_infra(Category c);

// "ok", "no_code", "hack_static", "compile", "runtime_crash", "timeout", "mismatch",
// "hack_dynamic", "too_fast", "infra", "no_device": the names stored and shown.
const char* category_name(Category c);
std::optional<Category> category_from(std::string_view name);
std::ostream& operator<<(std::ostream& os, Category c);  // the name: logs, test messages

// The latency a feasible verdict is credited with: latency_ms, unless an interleaved
// confirmation (verify/confirm.h, metrics["confirm"]["credited_ms"]) found the kernel not
// faster than the best it was compared with; then that best's latency (or slower).
double credited_ms(const Verdict& v);

std::string gate_name(Gate g);
nlohmann::json to_json(const Verdict& v);
Verdict verdict_from_json(const nlohmann::json& j);

}  // namespace evk
