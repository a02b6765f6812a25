// One memory item: a piece of text (and optionally code) that may be put into an LLM prompt.
// Items are immutable once stored except for the merge counter; what is learnt about them
// lives beside them (Q-values per stage, see memory.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stage.h"

namespace evk {

// api: backend guide and API templates (bypass Q, looked up by op name);
// experience: what failed and what fixed it; trace: one attempt with its verdict;
// best_practice: a change that made a kernel faster.
enum class ItemKind { Api, Experience, Trace, BestPractice };

std::string kind_name(ItemKind k);            // "api", "experience", "trace", "best_practice"
ItemKind kind_from(const std::string& name);  // UsageError on an unknown name

struct Item {
  int64_t id = 0;  // 0 until stored
  ItemKind kind = ItemKind::Trace;
  std::string backend = "cpu";
  std::string origin_task;  // empty for knowledge items
  std::string title, body, code, feedback;
  std::vector<std::string> tags;
  std::optional<double> latency_ms;
  bool feasible = false;
  std::optional<int64_t> parent;  // id of the item this one was derived from
  std::string created;            // ISO 8601 UTC, set when stored
};

// The text an item is matched on (title, tags, body, code, feedback).
std::string item_text(const Item& it);

nlohmann::json to_json(const Item& it);
Item item_from_json(const nlohmann::json& j);

// Current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string iso_now();

}  // namespace evk
