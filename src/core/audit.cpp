#include "core/audit.h"

#include <fmt/format.h>

namespace evk {

namespace {
constexpr std::pair<AuditOutcome, const char*> kAuditOutcomeNames[] = {
    {AuditOutcome::None, "none"},
    {AuditOutcome::Clean, "clean"},
    {AuditOutcome::Suspicious, "suspicious"},
    {AuditOutcome::Unparsed, "unparsed"},
    {AuditOutcome::Failed, "failed"},
};
}  // namespace

const char* audit_outcome_name(AuditOutcome o) {
  for (const auto& [v, n] : kAuditOutcomeNames)
    if (v == o) return n;
  return "none";
}

std::optional<AuditOutcome> audit_outcome_from(std::string_view name) {
  for (const auto& [v, n] : kAuditOutcomeNames)
    if (name == n) return v;
  return std::nullopt;
}

std::string audit_line(const Audit& a) {
  if (!a.audited()) return "not audited";
  return fmt::format("audit by {}: {}{}{}{}", a.model, audit_outcome_name(a.outcome),
                     a.withheld ? " (credit withheld)" : "", a.reason.empty() ? "" : ": ",
                     a.reason);
}

nlohmann::json to_json(const Audit& a) {
  return {{"outcome", audit_outcome_name(a.outcome)},
          {"reason", a.reason},
          {"model", a.model},
          {"calls", a.calls},
          {"prompt_tokens", a.prompt_tokens},
          {"completion_tokens", a.completion_tokens},
          {"cost_usd", a.cost_usd},
          {"withheld", a.withheld}};
}

Audit audit_from_json(const nlohmann::json& j) {
  Audit a;
  if (!j.is_object()) return a;
  try {
    a.outcome = audit_outcome_from(j.value("outcome", "none")).value_or(AuditOutcome::None);
    a.reason = j.value("reason", "");
    a.model = j.value("model", "");
    a.calls = j.value("calls", 0);
    a.prompt_tokens = j.value("prompt_tokens", int64_t{0});
    a.completion_tokens = j.value("completion_tokens", int64_t{0});
    a.cost_usd = j.value("cost_usd", 0.0);
    a.withheld = j.value("withheld", false);
  } catch (const nlohmann::json::exception&) {
    return Audit{};
  }
  return a;
}

}  // namespace evk
