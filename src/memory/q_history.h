// The memory's record of what it learned, read from a database without writing to it (a
// report must never change a run): each Q update as Memory::update applied it (the credit it
// learned from, Q before and after), which items were in each attempt's context, and the
// stored Q-values. The report reads these instead of the memory's tables, so the Q history it
// shows is the one the memory computed, whatever the credit (memory.baseline) was.
//
// Every function reads a database that may hold no memory tables (a `passk` run) or an older
// memory schema (before v3 there is no update log): it then returns nothing.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/sqlite.h"
#include "core/stage.h"

namespace evk {

// One Q update of one item, as applied.
struct QUpdate {
  std::string attempt_key;  // "task#idx" of the attempt it learned from; empty outside a run
  int64_t item_id = 0;
  Stage stage = Stage::Draft;
  double credit = 0;  // what the update learned from: the reward, or its advantage
  double q_before = 0, q_after = 0;
};

// One item in one attempt's context, with the attempt's reward (recorded even when frozen).
struct ContextRecord {
  std::string attempt_key;
  int64_t item_id = 0;
  Stage stage = Stage::Draft;
  double reward = 0;
};

// An item with its stored Q-value at one stage.
struct StoredQ {
  int64_t id = 0;
  std::string kind, title, origin_task;
  double q = 0;
  int visits = 0;
};

// The database holds the memory's items, Q-values and provenance.
bool has_memory(Db& db);
std::map<std::string, int64_t> items_by_kind(Db& db);
// The database holds the update log (memory schema v3 or later).
bool has_q_update_log(Db& db);
// Every Q update in the order it was applied; empty without the update log.
std::vector<QUpdate> q_updates(Db& db);
std::vector<ContextRecord> context_records(Db& db);
// The n visited items with the highest Q at the stage (ties: more visits, then lower id).
std::vector<StoredQ> top_q(Db& db, Stage stage, size_t n);

}  // namespace evk
