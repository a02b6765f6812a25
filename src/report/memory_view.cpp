#include "report/memory_view.h"

#include <fmt/format.h>

#include <cmath>

namespace evk {
namespace {

bool has_table(Db& db, const std::string& name) {
  auto s = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
  s.bind(1, name);
  return s.step();
}

struct Update {
  int ordinal;
  double reward;
};
using Key = std::pair<std::string, int64_t>;  // (stage, item id)

}  // namespace

std::vector<double> replay_q(double q0, const std::vector<double>& rewards, double alpha) {
  std::vector<double> out;
  out.reserve(rewards.size());
  double q = q0;
  for (double r : rewards) {
    q += alpha * (r - q);
    out.push_back(q);
  }
  return out;
}

MemoryView load_memory_view(Db& db, const std::vector<Attempt>& attempts, double alpha,
                            bool frozen, size_t top_n) {
  MemoryView v;
  v.alpha = alpha;
  v.attempts = static_cast<int>(attempts.size());
  if (!has_table(db, "memory_items") || !has_table(db, "memory_q") ||
      !has_table(db, "memory_provenance")) {
    v.note = "this run kept no memory (its method retrieves nothing)";
    return v;
  }
  v.present = true;
  {
    auto s = db.prepare("SELECT kind, count(*) FROM memory_items GROUP BY kind ORDER BY kind");
    while (s.step()) v.items_by_kind[s.text(0)] = s.int64(1);
  }
  // The agent commits attempts and their Q updates in one transaction, in attempt id order.
  std::map<std::string, int> ordinal;
  for (size_t i = 0; i < attempts.size(); ++i)
    ordinal[fmt::format("{}#{}", attempts[i].task, attempts[i].idx)] = static_cast<int>(i + 1);
  std::map<Key, std::vector<Update>> updates;
  std::map<std::string, std::map<int, bool>> stage_attempts;
  {
    auto s = db.prepare("SELECT attempt_key, item_id, stage, reward FROM memory_provenance");
    while (s.step()) {
      auto it = ordinal.find(s.text(0));
      if (it == ordinal.end()) continue;  // an attempt rolled back after its provenance: none
      updates[{s.text(2), s.int64(1)}].push_back({it->second, s.real(3)});
      stage_attempts[s.text(2)][it->second] = true;
    }
  }
  for (auto& [k, u] : updates)
    std::stable_sort(u.begin(), u.end(),
                     [](const Update& a, const Update& b) { return a.ordinal < b.ordinal; });

  // Did this run update Q? Then every stored visit count covers this run's updates.
  int consistent = 0, short_visits = 0;
  {
    auto s = db.prepare("SELECT item_id, stage, visits FROM memory_q");
    while (s.step()) {
      auto it = updates.find({s.text(1), s.int64(0)});
      if (it == updates.end()) continue;
      if (s.int64(2) >= static_cast<int64_t>(it->second.size()))
        ++consistent;
      else
        ++short_visits;
    }
  }
  v.learned = !frozen && consistent > 0 && short_visits == 0;
  if (frozen)
    v.note = "the memory was frozen (--freeze-memory): Q-values were read, never updated";
  else if (!v.learned)
    v.note = updates.empty() ? "no attempt had memory items in its context"
                             : "Q-values were not updated in this run (its method does not learn "
                               "them); the values shown are those it started with";

  for (Stage st : {Stage::Draft, Stage::Refine}) {
    const std::string stage = stage_name(st);
    StageMemoryView sv;
    sv.stage = st;
    sv.attempts = static_cast<int>(stage_attempts[stage].size());
    auto s = db.prepare(
        "SELECT m.id, m.kind, m.title, m.origin_task, q.q, q.visits FROM memory_q q"
        " JOIN memory_items m ON m.id = q.item_id WHERE q.stage=? AND q.visits > 0"
        " ORDER BY q.q DESC, q.visits DESC, m.id LIMIT ?");
    s.bind(1, stage).bind(2, static_cast<int64_t>(top_n));
    while (s.step()) {
      MemoryItemView it;
      it.id = s.int64(0);
      it.kind = s.text(1);
      it.title = s.text(2);
      it.origin_task = s.text(3);
      it.q = s.real(4);
      it.visits = static_cast<int>(s.int64(5));
      auto u = updates.find({stage, it.id});
      if (u != updates.end()) {
        std::vector<double> rewards;
        for (const auto& x : u->second) rewards.push_back(x.reward);
        it.updates = static_cast<int>(rewards.size());
        double sum = 0;
        for (double r : rewards) sum += r;
        it.mean_reward = sum / static_cast<double>(rewards.size());
        if (v.learned) {
          // Q_k = (1-a)^k q0 + (replay from 0): solve for q0 when the item arrived with visits.
          double from_zero = replay_q(0, rewards, alpha).back();
          double decay = std::pow(1 - alpha, static_cast<double>(rewards.size()));
          if (it.visits > it.updates && decay > 1e-9) it.q0 = (it.q - from_zero) / decay;
          auto qs = replay_q(it.q0, rewards, alpha);
          it.trajectory.push_back({0, it.q0});
          for (size_t i = 0; i < qs.size(); ++i) it.trajectory.push_back({u->second[i].ordinal, qs[i]});
        }
      } else {
        it.q0 = it.q;
      }
      sv.top.push_back(std::move(it));
    }
    v.stages.push_back(std::move(sv));
  }
  return v;
}

}  // namespace evk
