// The optional model auditor (--auditor MODEL, off by default): a second opinion on reward
// hacking, beside the verifier's gates. For each feasible kernel that would be credited as the
// task's new best, one call shows a model the task, the kernel and the verdict (its diagnosis
// included) and asks for a fixed JSON verdict {"verdict": "clean"|"suspicious", "reason": "..."}.
//
// Invariants:
//   - The answer never makes a kernel feasible: only a verdict the verifier found feasible is
//     audited, and an audit can only withhold credit (audit.policy = withhold), never grant it.
//   - An answer that is not the schema is asked again once (the same conversation, the answer
//     and a reminder of the schema); still not the schema, it is Unparsed. A call that fails
//     (the endpoint, its retries spent) is Failed. Both are treated by the policy as a kernel
//     that was not cleared: withheld under `withhold`, credited under `warn`.
//   - BudgetExceeded is not caught: the run stops resumably, as for the coder's calls.
#pragma once
#include <optional>
#include <string>

#include "core/audit.h"
#include "core/stage.h"
#include "core/verdict.h"
#include "llm/provider.h"

namespace evk {

// audit.policy: what a verdict other than clean does to the attempt's credit.
enum class AuditPolicy {
  Warn,      // recorded and shown; the kernel is credited
  Withhold,  // no credit as best, no Q update, no best practice (the default)
};
// "warn" or "withhold"; UsageError naming the key otherwise.
AuditPolicy audit_policy_from(const std::string& name);

// True when `policy` withholds the credit of an audit that ended in `outcome`.
bool audit_withholds(AuditPolicy policy, AuditOutcome outcome);

struct AuditRequest {
  std::string backend, language;  // "cpu", "C++17"
  std::string task, task_source;  // the task id and its PyTorch reference
  std::string fitted;             // "M 4096 -> 256, ..." when the task was fitted, else ""
  Stage stage = Stage::Draft;
  int attempt = 0;
  std::string code;
  Verdict verdict;  // feasible
};

// The system message and the user message a model is sent (golden-tested:
// tests/data/prompt_golden/audit_system.txt, audit.txt).
std::string audit_system_text();
std::string audit_request_text(const AuditRequest& r);

struct AuditAnswer {
  bool suspicious = false;
  std::string reason;  // cut to 400 characters
};
// The reply's JSON object, alone or in a fenced block; nullopt when it is not one, the verdict
// is not "clean" or "suspicious", or a suspicious verdict gives no reason.
std::optional<AuditAnswer> parse_audit_answer(const std::string& reply);

class Auditor {
 public:
  // `llm` is the auditor's provider (llm/provider.h: openai:, cmd:, replay:), `model` its name
  // as the run records it. Temperature 0: the same kernel should get the same review.
  Auditor(Provider& llm, std::string model, AuditPolicy policy, int max_tokens);

  // Reviews one kernel; thread-safe. `seed` and `task` go to the call's options (the
  // cassette key, per-task accounting).
  Audit audit(const AuditRequest& r, uint64_t seed) const;

  AuditPolicy policy() const { return policy_; }
  const std::string& model() const { return model_; }

 private:
  Provider& llm_;
  std::string model_;
  AuditPolicy policy_;
  int max_tokens_;
};

}  // namespace evk
