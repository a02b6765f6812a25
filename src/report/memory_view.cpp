#include "report/memory_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "memory/q_history.h"

namespace evk {
namespace {

using Key = std::pair<Stage, int64_t>;  // (stage, item id)

// What this run's attempts did to the memory, by (stage, item), in attempt order. Records of
// attempts not in the run's log (rolled back after the record) are left out.
struct RunRecords {
  std::map<Key, std::vector<double>> rewards;  // of the attempts with the item in context
  std::map<Key, std::vector<std::pair<int, QUpdate>>> updates;  // (attempt ordinal, update)
  std::map<Stage, std::set<int>> attempts_with_context;
};

// The agent commits attempts and their memory records in one transaction, in attempt id order:
// an attempt's ordinal in the run is its place in that order, 1-based.
std::map<std::string, int> attempt_ordinals(const std::vector<Attempt>& attempts) {
  std::map<std::string, int> ordinal;
  for (size_t i = 0; i < attempts.size(); ++i)
    ordinal[fmt::format("{}#{}", attempts[i].task, attempts[i].idx)] = static_cast<int>(i + 1);
  return ordinal;
}

RunRecords run_records(Db& db, const std::vector<Attempt>& attempts) {
  const auto ordinal = attempt_ordinals(attempts);
  RunRecords r;
  std::map<Key, std::vector<std::pair<int, double>>> rewards;
  for (const auto& c : context_records(db)) {
    auto it = ordinal.find(c.attempt_key);
    if (it == ordinal.end()) continue;
    rewards[{c.stage, c.item_id}].push_back({it->second, c.reward});
    r.attempts_with_context[c.stage].insert(it->second);
  }
  for (auto& [k, v] : rewards) {
    std::stable_sort(v.begin(), v.end());
    for (const auto& [o, reward] : v) r.rewards[k].push_back(reward);
  }
  for (const auto& u : q_updates(db)) {
    auto it = ordinal.find(u.attempt_key);
    if (it != ordinal.end()) r.updates[{u.stage, u.item_id}].push_back({it->second, u});
  }
  for (auto& [k, v] : r.updates)
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  return r;
}

// One item's row: its stored Q, and the trajectory of the updates this run applied to it.
MemoryItemView item_view(const StoredQ& s, Stage stage, const RunRecords& r, bool learned) {
  MemoryItemView it;
  it.id = s.id;
  it.kind = s.kind;
  it.title = s.title;
  it.origin_task = s.origin_task;
  it.q = s.q;
  it.q0 = s.q;
  it.visits = s.visits;
  if (auto f = r.rewards.find({stage, s.id}); f != r.rewards.end()) {
    it.updates = static_cast<int>(f->second.size());
    double sum = 0;
    for (double x : f->second) sum += x;
    it.mean_reward = sum / static_cast<double>(f->second.size());
  }
  auto u = r.updates.find({stage, s.id});
  if (!learned || u == r.updates.end()) return it;
  it.q0 = u->second.front().second.q_before;
  it.trajectory.push_back({0, it.q0});
  for (const auto& [ordinal, x] : u->second) it.trajectory.push_back({ordinal, x.q_after});
  return it;
}

std::string learning_note(bool frozen, bool learned, const RunRecords& r, bool logged) {
  if (frozen) return "the memory was frozen (--freeze-memory): Q-values were read, never updated";
  if (learned) return "";
  if (r.rewards.empty()) return "no attempt had memory items in its context";
  if (!logged)
    return "this run's memory predates its Q update log: the values shown are those it ended "
           "with, without their trajectories";
  return "Q-values were not updated in this run (its method does not learn them); the values "
         "shown are those it started with";
}

}  // namespace

MemoryView load_memory_view(Db& db, const std::vector<Attempt>& attempts, double alpha,
                            bool frozen, size_t top_n) {
  MemoryView v;
  v.alpha = alpha;
  v.attempts = static_cast<int>(attempts.size());
  if (!has_memory(db)) {
    v.note = "this run kept no memory (its method retrieves nothing)";
    return v;
  }
  v.present = true;
  v.items_by_kind = items_by_kind(db);
  const RunRecords r = run_records(db, attempts);
  v.learned = !frozen && !r.updates.empty();
  v.note = learning_note(frozen, v.learned, r, has_q_update_log(db));
  for (Stage st : {Stage::Draft, Stage::Refine}) {
    StageMemoryView sv;
    sv.stage = st;
    if (auto a = r.attempts_with_context.find(st); a != r.attempts_with_context.end())
      sv.attempts = static_cast<int>(a->second.size());
    for (const auto& s : top_q(db, st, top_n)) sv.top.push_back(item_view(s, st, r, v.learned));
    v.stages.push_back(std::move(sv));
  }
  return v;
}

}  // namespace evk
