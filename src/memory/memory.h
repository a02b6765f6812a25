// The memory bank: items shared across operators, their Q-values per stage, the refining
// reward normaliser and provenance, in the workspace database (component "memory"), plus an
// in-memory similarity index loaded once per process (docs/architecture.md §5).
//
// Invariants relied upon:
//  - Each write (an add, an update of the Q-values of one context, a normaliser step, one
//    provenance record, a whole import) is one transaction: a crash leaves it whole or absent.
//  - Item ids only grow (AUTOINCREMENT), so the index catches up with items added by other
//    processes by loading ids above the largest it holds.
//  - Document frequencies are derived from the stored items' term vectors when the index is
//    loaded and kept up to date as items are added; they are never stored separately, so they
//    cannot disagree with the items.
//  - Q starts at 0 for every (item, stage); a frozen memory writes nothing but provenance.
//  - Not thread-safe: a run shares one Memory among its workers, and every call goes through
//    the caller's single-writer lock (Agent::writer_).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/workspace.h"
#include "memory/embedding.h"
#include "memory/policy.h"
#include "memory/index.h"
#include "memory/item.h"
#include "memory/reward.h"

namespace evk {

// What a Q update learns from (docs/architecture.md section 5): the reward itself (the
// paper), or the reward minus the running mean of the rewards of the same task at the same
// stage, so that an item is not blamed for the task it was shown to (an advantage).
enum class BaselineKind { None, Task };
BaselineKind baseline_from(const std::string& name);  // UsageError naming the choices
const char* baseline_name(BaselineKind b);

struct MemoryParams {
  Policy policy = Policy::Value;
  int n = 6;
  double lambda = 5, epsilon = 0.1, epsilon_decay = 1.0, alpha = 0.2, blend_w = 0.5,
         sigma_min = 0.1, clip = 3;
  uint64_t seed = 0;
  BaselineKind baseline = BaselineKind::None;
  double dedup_threshold = 0.95;
  // A new workspace is seeded from knowledge_root/<backend> (once: a meta key remembers it).
  // The backend is the run's (the Agent sets it from its Backend); empty: nothing is seeded,
  // so no command silently fills a memory with another backend's bundle.
  bool auto_seed = true;
  std::string backend;
  std::filesystem::path knowledge_root;  // empty: data_root()/knowledge
  // memory.diagnosis: refining retrieval conditioned on the start point's bound (its tag in the
  // query, Q2 per bound state); false: the paper's query state alone.
  bool by_bound = true;
  // memory.summarize = model: a best practice's text starts with the coder model's own account
  // of the change (agent/experience_request.h); rules: the rule summary alone.
  bool model_experiences = false;
};
// From the memory.* config keys; UsageError on out-of-range values.
MemoryParams memory_params(const Config& c);

struct MemoryQuery {
  std::string backend = "cpu";
  std::string text;                   // task source + fx op list + error text
  std::vector<std::string> op_names;  // weighted up, and used for api lookup
  std::string error_category;         // weighted up
  std::vector<ItemKind> kinds;        // empty: every kind but api
  std::string exclude_origin_task;    // optional
  // Refining: the start point's bound (core/diagnosis.h bound_name), "" when none or when
  // memory.diagnosis is off. It joins the query text as the tag items carry (bound_NAME), and
  // it is the state of the per-bound Q2 (Memory::update_bound).
  std::string bound;
};

struct Retrieved {
  Item item;
  double similarity = 0;
  double q = 0;  // of the stage retrieved for
  int visits = 0;
};

struct QEntry {
  double q = 0;
  int visits = 0;
  std::string updated;  // empty when never updated
};

struct MemoryStats {
  std::map<std::string, int64_t> items_by_kind;
  int64_t items = 0, merged = 0, provenance_rows = 0, attempts = 0;
  std::map<std::string, int64_t> visited;  // stage -> items with visits > 0
  std::map<std::string, double> mean_q;    // stage -> mean Q of visited items
  RunningStats refine_normaliser;
};

struct PruneOptions {
  int keep_traces_per_task = 50;  // the newest N traces of each (backend, task) always stay
  bool dry_run = false;
};

class Memory {
 public:
  Memory(Workspace& ws, MemoryParams p);

  const MemoryParams& params() const { return p_; }

  // Adds or refreshes one item per knowledge file, keyed by file: reloading the same files
  // changes nothing; a changed file updates its item in place (its Q-values stay). Returns the
  // number of items added or changed.
  size_t seed_from_knowledge(const std::filesystem::path& dir, const std::string& backend);

  // Stores the item and returns its id. An identical item (same kind, feasible flag, backend,
  // task, title, body, code), or a near-duplicate (same kind, backend, task, feasible flag and tags, TF-IDF
  // cosine >= dedup_threshold), is merged instead: its merge count goes up and its id is
  // returned. When frozen, returns the id of an identical item or 0 (nothing stored).
  // Feasible traces merge only when identical: each is a start point with its own latency.
  int64_t add(const Item& item);
  Item get(int64_t id);  // UsageError when there is no such item
  std::optional<Item> find(int64_t id);
  size_t size();

  // The backend's always-on guide (api items tagged `guide`), then api items whose tags
  // exactly name one of the query's ops. They bypass Q.
  std::vector<Item> api_items(const MemoryQuery& q);

  // Phase A: the top K = round(lambda * N) items by similarity; phase B by policy (policy.h).
  // The same (query, stage, rng_seed, bank, Q-values) always gives the same answer.
  // `policy` and `epsilon` override the parameters for this call.
  std::vector<Retrieved> retrieve(const MemoryQuery& q, Stage stage, uint64_t rng_seed,
                                  std::optional<Policy> policy = {},
                                  std::optional<double> epsilon = {});
  // The recall pool alone (phase A), best first.
  std::vector<SimilarityIndex::Hit> recall(const MemoryQuery& q, size_t k);

  // Q <- q_update(Q, alpha, credit) for each distinct id (reward.h); visits + 1. Each step is
  // recorded with the attempt it learned from (attempt_key, "task#idx"; empty outside a run),
  // the credit and Q before and after: the Q history a report shows (q_history.h). No-op when
  // frozen.
  void update(const std::vector<int64_t>& ids, Stage stage, double credit,
              const std::string& attempt_key = "");
  double q(int64_t id, Stage stage);
  // Q per (item, stage, bound): the same update rule, in the state "start point bound by
  // `bound`" (table memory_q_bound). retrieve() with a query naming a bound ranks an item by
  // its bound Q once that state has visited it, else by its stage Q. Not exported (a
  // refinement of the stage Q, relearnt by a run).
  void update_bound(const std::vector<int64_t>& ids, Stage stage, const std::string& bound,
                    double reward);
  QEntry q_entry_bound(int64_t id, Stage stage, const std::string& bound);
  // What update() should learn from for an attempt of `task` at `stage` with `reward`:
  // the reward (baseline none), or reward minus the mean of the task's earlier rewards at the
  // stage (the stage-wide mean for a task's first attempt); then the reward joins the means
  // (unless frozen). One transaction.
  double credit(const std::string& task, Stage stage, double reward);
  QEntry q_entry(int64_t id, Stage stage);

  // Normalises a raw refining reward with the statistics of the rewards seen before it
  // (so a reward does not shift its own baseline), then adds it to them (unless frozen):
  // clip((r - mu) / max(sigma, sigma_min), +-clip). The first reward is r / sigma_min, clipped.
  double normalise_refine_reward(double raw);
  RunningStats normaliser();

  // Which items were in the context of an attempt and the reward that followed. Recorded even
  // when frozen (it is a log, not memory content).
  void record_provenance(const std::string& attempt_key, const std::vector<int64_t>& ids,
                         Stage stage, double reward);

  void set_frozen(bool frozen) { frozen_ = frozen; }
  bool frozen() const { return frozen_; }

  // JSON Lines: a header line, then one line per item in id order with its Q-values, merge
  // count and knowledge source. Import maps parents to new ids, skips items identical to one
  // held (adopting the imported Q of a stage the held item never visited) and items whose
  // origin_task is in exclude_tasks. Returns the number of items added.
  void export_jsonl(const std::filesystem::path& file);
  size_t import_jsonl(const std::filesystem::path& file, const std::set<std::string>& exclude_tasks);

  MemoryStats stats();
  std::vector<Item> list(std::optional<ItemKind> kind, size_t limit = 0);
  std::vector<std::pair<Item, QEntry>> top(Stage stage, size_t n);
  // Removes traces beyond the newest keep_traces_per_task of each task that no item names as
  // parent and whose Q is not positive in any stage. Returns how many (would be) removed.
  size_t prune(const PruneOptions& o);

  // The index, for benchmarks and tests that compare against its brute-force scan.
  SimilarityIndex& index();
  TermVector query_terms(const MemoryQuery& q) const;

 private:
  int64_t insert(const Item& it, const std::string& source, const std::string& hash,
                 const TermVector& terms, int64_t merged);
  std::optional<int64_t> merge_target(const Item& it, const std::string& hash,
                                      const TermVector& terms);
  void sync_index();
  void reload_index();
  std::vector<Item> load_items(const std::vector<int64_t>& ids);

  Workspace& ws_;
  MemoryParams p_;
  SimilarityIndex index_;
  bool frozen_ = false;
};

// Terms of an item: title twice, tags three times, then body, code and feedback.
TermVector item_terms(const Item& it);
// Identity of an item's content (kind, feasible flag, backend, task, title, body, code).
std::string item_hash(const Item& it);

}  // namespace evk
