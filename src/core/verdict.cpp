#include "core/verdict.h"

namespace evk {

bool is_infra(const std::string& category) {
  return category == "infra" || category == "no_device";
}

double credited_ms(const Verdict& v) {
  auto it = v.metrics.find("confirm");
  if (it != v.metrics.end() && it->is_object() && it->contains("credited_ms"))
    return (*it)["credited_ms"].get<double>();
  return v.latency_ms;
}

std::string gate_name(Gate g) {
  switch (g) {
    case Gate::StaticHack: return "static_hack";
    case Gate::Compile: return "compile";
    case Gate::Correctness: return "correctness";
    case Gate::DynamicHack: return "dynamic_hack";
    case Gate::Latency: return "latency";
  }
  return "unknown";
}

nlohmann::json to_json(const Verdict& v) {
  nlohmann::json gates = nlohmann::json::array();
  for (const auto& g : v.gates)
    gates.push_back({{"gate", g.gate}, {"passed", g.passed}, {"detail", g.detail}});
  return {{"feasible", v.feasible},
          {"gate", gate_name(v.gate)},
          {"category", v.category},
          {"feedback", v.feedback},
          {"gates", gates},
          {"compiled", v.compiled},
          {"latency_ms", v.latency_ms},
          {"latency_iqr_ms", v.latency_iqr_ms},
          {"timed_calls", v.timed_calls},
          {"gbps", v.gbps},
          {"gflops", v.gflops},
          {"roofline_fraction", v.roofline_fraction},
          {"eager_ms", v.eager_ms},
          {"wall_s", v.wall_s},
          {"cached", v.cached},
          {"metrics", v.metrics}};
}

static Gate gate_from(const std::string& s) {
  for (Gate g : {Gate::StaticHack, Gate::Compile, Gate::Correctness, Gate::DynamicHack,
                 Gate::Latency})
    if (gate_name(g) == s) return g;
  return Gate::StaticHack;
}

Verdict verdict_from_json(const nlohmann::json& j) {
  Verdict v;
  v.feasible = j.value("feasible", false);
  v.gate = gate_from(j.value("gate", "static_hack"));
  v.category = j.value("category", "");
  v.feedback = j.value("feedback", "");
  for (const auto& g : j.value("gates", nlohmann::json::array()))
    v.gates.push_back({g.value("gate", ""), g.value("passed", false), g.value("detail", "")});
  v.compiled = j.value("compiled", false);
  v.latency_ms = j.value("latency_ms", 0.0);
  v.latency_iqr_ms = j.value("latency_iqr_ms", 0.0);
  v.timed_calls = j.value("timed_calls", 0);
  v.gbps = j.value("gbps", 0.0);
  v.gflops = j.value("gflops", 0.0);
  v.roofline_fraction = j.value("roofline_fraction", 0.0);
  v.eager_ms = j.value("eager_ms", 0.0);
  v.wall_s = j.value("wall_s", 0.0);
  v.cached = j.value("cached", false);
  v.metrics = j.value("metrics", nlohmann::json::object());
  return v;
}

}  // namespace evk
