// What the memory of one run learned, for the report: the items with the highest Q per stage
// and how their Q-values moved during the run.
//
// Reads the run database's memory tables (component "memory", schema v1: memory_items,
// memory_q, memory_provenance) read-only, with plain SQL, so that rendering a report never
// writes to a run (a run without memory tables, e.g. `passk`, simply has none to show).
//
// Q trajectories are rebuilt by replaying Q <- Q + alpha (r - Q) over the provenance records
// (which items were in each attempt's context, and the reward that followed) in attempt order,
// the order the agent committed them in. The Q an item started the run with is 0 unless it
// came from an imported memory: then it is solved for from the stored final Q, visits and the
// replayed updates, so that every trajectory ends exactly at the stored value.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/sqlite.h"
#include "core/stage.h"
#include "run/run_store.h"

namespace evk {

struct MemoryItemView {
  int64_t id = 0;
  std::string kind, title, origin_task;
  double q = 0;     // stored, at the end of the run
  int visits = 0;   // stored, all-time (including an imported memory's)
  int updates = 0;  // updates during this run
  double q0 = 0;    // Q at the start of this run
  // (attempt ordinal in the run, 1-based; Q after that attempt's update), starting with
  // (0, q0). Empty when the run did not update Q.
  std::vector<std::pair<int, double>> trajectory;
  double mean_reward = 0;  // of the attempts that had the item in context (this run)
};

struct StageMemoryView {
  Stage stage = Stage::Draft;
  std::vector<MemoryItemView> top;
  int attempts = 0;   // attempts of this stage with a non-empty context
};

struct MemoryView {
  bool present = false;  // the run database has memory tables
  bool learned = false;  // Q-values were updated during this run
  double alpha = 0.2;
  int attempts = 0;      // attempts in the run (the x range of trajectories)
  std::map<std::string, int64_t> items_by_kind;
  std::vector<StageMemoryView> stages;
  std::string note;      // why there is nothing to show, or a caveat
};

// One replayed update sequence: Q after each reward, starting from q0.
std::vector<double> replay_q(double q0, const std::vector<double>& rewards, double alpha);

// top_n items per stage by stored Q (visited items only). `frozen`: the run's --freeze-memory.
MemoryView load_memory_view(Db& run_db, const std::vector<Attempt>& attempts, double alpha,
                            bool frozen, size_t top_n);

}  // namespace evk
