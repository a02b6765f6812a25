#include "agent/experience_request.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace evk {

namespace {

constexpr size_t kMaxField = 400;

std::string diagnosis_or_none(const Diagnosis& d) {
  return d.empty() ? "(not diagnosed)\n" : render_diagnosis(d);
}

std::string bound_names() {
  std::string s;
  for (const char* n : {"mte2", "mte3", "vector", "cube", "scalar", "launch", "imbalance",
                        "serialised", "memory", "compute", "unknown"})
    s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

}  // namespace

std::string experience_request_text(const ExperienceRequest& r) {
  return fmt::format(
      "Your refinement of `{task}` on the `{backend}` backend (attempt {attempt}, from attempt "
      "{start}) was confirmed faster: {start_ms:.4g} ms -> {new_ms:.4g} ms ({speedup:.2f}x).\n"
      "Write the experience a later refinement of another kernel should learn from.\n\n"
      "## Diagnosis of the start point\n{before}\n## Diagnosis of the new kernel\n{after}\n"
      "## The change (lines removed -, added +)\n```\n{diff}```\n\n"
      "## Answer\nReply with one JSON object and nothing else:\n"
      "{{\"what_changed\": \"the change in one sentence\", \"why_it_paid\": \"why it made the "
      "kernel faster, in one sentence\", \"bound\": \"the bound it fixed: one of {bounds}\"}}\n",
      fmt::arg("task", r.task), fmt::arg("backend", r.backend), fmt::arg("attempt", r.attempt),
      fmt::arg("start", r.start_attempt), fmt::arg("start_ms", r.start_ms),
      fmt::arg("new_ms", r.new_ms), fmt::arg("speedup", r.new_ms > 0 ? r.start_ms / r.new_ms : 0.0),
      fmt::arg("before", diagnosis_or_none(r.before)),
      fmt::arg("after", diagnosis_or_none(r.after)), fmt::arg("diff", r.diff),
      fmt::arg("bounds", bound_names()));
}

std::optional<ModelExperience> parse_model_experience(const std::string& reply) {
  const size_t open = reply.find('{'), close = reply.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  const nlohmann::json j =
      nlohmann::json::parse(reply.substr(open, close - open + 1), nullptr, false);
  if (!j.is_object()) return std::nullopt;
  auto field = [&](const char* k) -> std::string {
    auto it = j.find(k);
    if (it == j.end() || !it->is_string()) return "";
    std::string s = it->get<std::string>();
    return s.size() > kMaxField ? s.substr(0, kMaxField) : s;
  };
  ModelExperience e{field("what_changed"), field("why_it_paid")};
  const std::optional<Bound> b = bound_from(field("bound"));
  if (e.what_changed.empty() || e.why_it_paid.empty() || !b) return std::nullopt;
  e.bound = *b;
  return e;
}

std::string model_experience_text(const ModelExperience& e, const std::string& model, int attempt) {
  return fmt::format(
      "Experience (written by {} after attempt {}):\nWhat changed: {}\nWhy it paid: {}\nBound it "
      "fixed: {}\n\nRule summary:\n",
      model, attempt, e.what_changed, e.why_it_paid, bound_name(e.bound));
}

}  // namespace evk
