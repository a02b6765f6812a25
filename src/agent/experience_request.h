// Experiences the model writes (memory.summarize = model): after a refinement confirmed
// faster than the task's best, one call asks the coder model what changed, why it paid and
// which bound it fixed, in a fixed JSON schema. The answer is stored as the best practice's
// text above the rule-based summary (memory/writers.h), with its provenance (the model, the
// attempt); an answer that is not the schema is dropped and the rule summary stands alone.
#pragma once
#include <optional>
#include <string>

#include "core/diagnosis.h"

namespace evk {

struct ExperienceRequest {
  std::string backend, task;
  int attempt = 0, start_attempt = 0;
  double start_ms = 0, new_ms = 0;
  Diagnosis before, after;  // the start point's and the new kernel's
  std::string diff;         // memory/writers.h diff_summary(start, new)
};

// The user message of the call (golden-tested: tests/data/prompt_golden/summarise.txt).
std::string experience_request_text(const ExperienceRequest& r);

struct ModelExperience {
  std::string what_changed, why_it_paid;
  Bound bound = Bound::Unknown;  // the bound it says the change fixed
};

// The reply's JSON object ({"what_changed", "why_it_paid", "bound"}), alone or in a fenced
// block; nullopt when it is not one, a field is missing or empty, or the bound is not a name
// of core/diagnosis.h. Each text is cut to 400 characters.
std::optional<ModelExperience> parse_model_experience(const std::string& reply);

// The text stored above the rule summary: "Experience (written by MODEL after attempt N): ...".
std::string model_experience_text(const ModelExperience& e, const std::string& model, int attempt);

}  // namespace evk
