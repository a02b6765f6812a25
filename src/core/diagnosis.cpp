#include "core/diagnosis.h"

namespace evk {

static constexpr Bound kBounds[] = {Bound::Unknown, Bound::Mte2,      Bound::Mte3,
                                    Bound::Vector,  Bound::Cube,      Bound::Scalar,
                                    Bound::Launch,  Bound::Imbalance, Bound::Serialised,
                                    Bound::Memory,  Bound::Compute};

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::Unknown:
      return "unknown";
    case Bound::Mte2:
      return "mte2";
    case Bound::Mte3:
      return "mte3";
    case Bound::Vector:
      return "vector";
    case Bound::Cube:
      return "cube";
    case Bound::Scalar:
      return "scalar";
    case Bound::Launch:
      return "launch";
    case Bound::Imbalance:
      return "imbalance";
    case Bound::Serialised:
      return "serialised";
    case Bound::Memory:
      return "memory";
    case Bound::Compute:
      return "compute";
  }
  return "unknown";
}

std::optional<Bound> bound_from(std::string_view name) {
  for (Bound b : kBounds)
    if (name == bound_name(b)) return b;
  return std::nullopt;
}

std::string bound_tag(Bound b) {
  return std::string("bound_") + bound_name(b);
}

std::string render_diagnosis(const Diagnosis& d) {
  if (d.empty()) return "";
  std::string s = std::string("bound: ") + bound_name(d.bound);
  if (!d.basis.empty()) s += " (" + d.basis + ")";
  s += "\n";
  for (const auto& f : d.facts) s += "- " + f + "\n";
  return s;
}

nlohmann::json to_json(const Diagnosis& d) {
  return {{"bound", bound_name(d.bound)},
          {"basis", d.basis},
          {"facts", d.facts},
          {"figures", d.figures}};
}

Diagnosis diagnosis_from_json(const nlohmann::json& j) {
  Diagnosis d;
  if (!j.is_object()) return d;
  d.bound = bound_from(j.value("bound", "unknown")).value_or(Bound::Unknown);
  d.basis = j.value("basis", "");
  for (const auto& f : j.value("facts", nlohmann::json::array()))
    if (f.is_string()) d.facts.push_back(f.get<std::string>());
  d.figures = j.value("figures", nlohmann::json::object());
  return d;
}

}  // namespace evk
