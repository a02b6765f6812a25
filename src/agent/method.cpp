#include "agent/method.h"

#include "core/error.h"

namespace evk {

Method method_by_name(const std::string& name) {
  if (name == "evokernel")
    return {.name = name,
            .policy = Policy::Value,
            .write_memory = true,
            .learn_q = true,
            .show_attempts = true,
            .refine_stage = true,
            .start_by_q = true,
            .api_templates = true};
  if (name == "rag")
    return {.name = name,
            .policy = Policy::Similarity,
            .write_memory = true,
            .show_attempts = true,
            .refine_stage = true,
            .api_templates = true};
  if (name == "refine")
    return {.name = name, .show_attempts = true, .refine_stage = true, .api_templates = true};
  if (name == "passk") return {.name = name, .api_templates = false};
  throw UsageError("unknown method '" + name + "': use evokernel, passk, refine or rag");
}

}  // namespace evk
