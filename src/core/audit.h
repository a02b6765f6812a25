// What the optional model auditor (agent/auditor.h) said of one attempt, as stored with it in
// the run database and shown in reports. An audit is a second opinion on a kernel the verifier
// found feasible and that would be credited as the task's new best; it never makes a kernel
// feasible, it can only withhold the credit (audit.policy = withhold).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace evk {

enum class AuditOutcome {
  None,        // not audited: no auditor, or not a new best
  Clean,       // the auditor found no reward hacking
  Suspicious,  // the auditor named a way the kernel games the verifier
  Unparsed,    // the answer was not the fixed JSON verdict, after one retry
  Failed,      // the call failed (the endpoint, its retries spent)
};

// "none", "clean", "suspicious", "unparsed", "failed": the names stored and shown.
const char* audit_outcome_name(AuditOutcome o);
std::optional<AuditOutcome> audit_outcome_from(std::string_view name);

struct Audit {
  AuditOutcome outcome = AuditOutcome::None;
  std::string reason;  // the auditor's reason; for unparsed / failed, what went wrong
  std::string model;   // the auditor as the run names it ("openai:gpt-5.2")
  int calls = 0;       // 1, or 2 when the first answer did not parse
  int64_t prompt_tokens = 0, completion_tokens = 0;  // also counted in the attempt's
  double cost_usd = 0;
  // The policy withheld the credit: the attempt is not the task's best, writes no best
  // practice and updates no Q-value (its reward is 0).
  bool withheld = false;

  bool audited() const { return outcome != AuditOutcome::None; }
};

// One line: "audit by openai:m: suspicious (credit withheld): caches by input address".
std::string audit_line(const Audit& a);

nlohmann::json to_json(const Audit& a);
// Lenient: a missing or damaged record reads as not audited.
Audit audit_from_json(const nlohmann::json& j);

}  // namespace evk
