// The two stages of the paper: cold-start drafting (Q1) and continual refining (Q2). In the
// core because an attempt (run store), an item's Q (memory) and a prompt (agent) all have one.
#pragma once
#include <string>

namespace evk {

enum class Stage { Draft, Refine };

std::string stage_name(Stage s);            // "draft", "refine"
Stage stage_from(const std::string& name);  // UsageError on an unknown name

}  // namespace evk
