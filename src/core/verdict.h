// The verifier's answer about one candidate. Shared by verify/ (which produces it), agent/
// and memory/ (which learn from it) and report/ (which shows it).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace evk {

// Gates in the order they run (docs/architecture.md §6). `gate` in a Verdict is the last gate
// reached: the failing one, or Gate::Latency when feasible.
enum class Gate { StaticHack = 1, Compile = 2, Correctness = 3, DynamicHack = 4, Latency = 5 };

struct GateOutcome {
  std::string gate;     // "static_hack", "compile", "correctness", "dynamic_hack", "latency"
  bool passed = false;
  std::string detail;   // one line
};

struct Verdict {
  bool feasible = false;
  Gate gate = Gate::StaticHack;
  // "ok" when feasible; else one of: hack_static, compile, runtime_crash, timeout, mismatch,
  // hack_dynamic, too_fast, no_code, infra, no_device.
  std::string category = "ok";
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
  nlohmann::json metrics = nlohmann::json::object();  // anything else (max_abs_err, ...)
};

// `infra` (the verification machinery failed) and `no_device` (no device here to run on) say
// nothing about the kernel: never a reward, never a memory item, never cached.
bool is_infra(const std::string& category);

// The latency a feasible verdict is credited with: latency_ms, unless an interleaved
// confirmation (verify/confirm.h, metrics["confirm"]["credited_ms"]) found the kernel not
// faster than the best it was compared with; then that best's latency (or slower).
double credited_ms(const Verdict& v);

std::string gate_name(Gate g);
nlohmann::json to_json(const Verdict& v);
Verdict verdict_from_json(const nlohmann::json& j);

}  // namespace evk
