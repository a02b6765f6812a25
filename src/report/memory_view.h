// What the memory of one run learned, for the report: the items with the highest Q per stage
// and how their Q-values moved during the run.
//
// Reads the run database through the memory's read-only history (memory/q_history.h), never
// writing to it, so that rendering a report never changes a run (a run without memory, e.g.
// `passk`, simply has none to show).
//
// A trajectory is the Q update log as the memory applied it (the credit it learned from, which
// with memory.baseline = task is not the reward), ordered by the attempts of the run: it starts
// at the Q the item had before the run's first update (0 unless an imported memory held it)
// and ends at the stored value. Nothing is replayed here.
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
  int updates = 0;  // attempts of this run with the item in context (each updated Q if it learned)
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
  double alpha = 0.2;    // the run's memory.alpha, for the caption
  int attempts = 0;      // attempts in the run (the x range of trajectories)
  std::map<std::string, int64_t> items_by_kind;
  std::vector<StageMemoryView> stages;
  std::string note;      // why there is nothing to show, or a caveat
};

// top_n items per stage by stored Q (visited items only). `frozen`: the run's --freeze-memory.
MemoryView load_memory_view(Db& run_db, const std::vector<Attempt>& attempts, double alpha,
                            bool frozen, size_t top_n);

}  // namespace evk
