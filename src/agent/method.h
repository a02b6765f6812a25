// The methods compared in the paper, as switches on one loop (docs/architecture.md §3). Same
// budget, same verifier; they differ only in what the prompt gets and what is learned.
#pragma once
#include <string>

#include "memory/policy.h"

namespace evk {

struct Method {
  std::string name;           // evokernel, passk, refine, rag
  Policy policy = Policy::None;  // retrieval policy
  bool write_memory = false;  // traces, experiences, best practices
  bool learn_q = false;       // Q updates and the reward normaliser
  bool show_attempts = false; // earlier attempts with their feedback in the draft prompt
  bool refine_stage = false;  // after the first feasible kernel, refine start points
  bool start_by_q = false;    // start point by epsilon-greedy Q2 (else the fastest)
  bool api_templates = true;  // api templates named by the task's ops (passk: the guide only)
};

// UsageError for an unknown name.
Method method_by_name(const std::string& name);

}  // namespace evk
