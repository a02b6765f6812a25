#include "core/verdict.h"

#include <ostream>

namespace evk {

bool is_infra(Category c) {
  return c == Category::Infra || c == Category::NoDevice;
}

static constexpr Category kCategories[] = {
    Category::Ok,           Category::NoCode,  Category::HackStatic, Category::Compile,
    Category::RuntimeCrash, Category::Timeout, Category::Mismatch,   Category::HackDynamic,
    Category::TooFast,      Category::Infra,   Category::NoDevice};

const char* category_name(Category c) {
  switch (c) {
    case Category::Ok:
      return "ok";
    case Category::NoCode:
      return "no_code";
    case Category::HackStatic:
      return "hack_static";
    case Category::Compile:
      return "compile";
    case Category::RuntimeCrash:
      return "runtime_crash";
    case Category::Timeout:
      return "timeout";
    case Category::Mismatch:
      return "mismatch";
    case Category::HackDynamic:
      return "hack_dynamic";
    case Category::TooFast:
      return "too_fast";
    case Category::Infra:
      return "infra";
    case Category::NoDevice:
      return "no_device";
  }
  return "infra";
}

std::optional<Category> category_from(std::string_view name) {
  for (Category c : kCategories)
    if (name == category_name(c)) return c;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, Category c) {
  return os << category_name(c);
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
    gates.push_back({{"gate", gate_name(g.gate)}, {"passed", g.passed}, {"detail", g.detail}});
  return {{"feasible", v.feasible},
          {"gate", gate_name(v.gate)},
          {"category", category_name(v.category)},
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
          {"diagnosis", to_json(v.diagnosis)},
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
  // A name this build does not know (a newer writer, a damaged record) says nothing about the
  // kernel: infra, so it is neither credited nor cached.
  const std::optional<Category> c = category_from(j.value("category", ""));
  v.category = c.value_or(Category::Infra);
  if (!c) v.feasible = false;
  v.feedback = j.value("feedback", "");
  for (const auto& g : j.value("gates", nlohmann::json::array()))
    v.gates.push_back(
        {gate_from(g.value("gate", "")), g.value("passed", false), g.value("detail", "")});
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
  v.diagnosis = diagnosis_from_json(j.value("diagnosis", nlohmann::json()));
  v.metrics = j.value("metrics", nlohmann::json::object());
  return v;
}

}  // namespace evk
