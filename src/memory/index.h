// The in-memory similarity index over every stored item: each item's term vector, the
// document frequencies, and an inverted index (term -> rows with their term frequency),
// loaded once per process.
//
// Search is exact TF-IDF cosine, organised so that it stays fast at 100k items:
//  1. accumulate dot products over the postings of the query's terms, skipping terms that
//     occur in more than half of a bank of over 2000 items (idf <= ln 2 + 1, against ~10 for
//     a rare term, and the longest postings) unless that leaves fewer than the shortlist
//     touched; times each row's cached inverse norm, in one branch-free pass over the rows;
//  2. the shortlist, the best max(4k, k+64) of those scores: partitioned among the rows at or
//     above a floor sampled from every 16th row (about twice the shortlist reach it), or among
//     all touched rows when fewer reach it, so it is the set a full partition would give;
//  3. re-rank the shortlist by the exact cosine under the current document frequencies, every
//     query term included.
// Cached norms use the document frequencies of the moment they were computed and are all
// recomputed once the bank has grown by a tenth; the re-rank is always current. Inside, each
// term also has a dense id with its document frequency in a flat array, so that the re-rank's
// idf of every row term is two array reads, not a hash lookup (the same float as
// DocFreq::idf). Rows with similarity 0 rank last, by id, as in the brute-force scan.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "memory/embedding.h"
#include "memory/item.h"

namespace evk {

class SimilarityIndex {
 public:
  struct Filter {
    std::string backend;
    std::vector<ItemKind> kinds;  // empty: any
    std::string exclude_task;     // empty: none
  };
  struct Hit {
    int64_t id;
    double similarity;
  };

  void add(int64_t id, ItemKind kind, const std::string& backend, const std::string& task,
           TermVector terms);
  void clear();
  size_t size() const { return rows_.size(); }
  int64_t max_id() const { return rows_.empty() ? 0 : rows_.back().id; }  // ids arrive ascending
  const DocFreq& doc_freq() const { return df_; }

  // The k rows passing the filter with the highest TF-IDF cosine to q, best first; ties by id.
  std::vector<Hit> top(const TermVector& q, const Filter& f, size_t k);
  // The same by exact cosine over every passing row: the plain reference for tests and benches.
  std::vector<Hit> brute_force_top(const TermVector& q, const Filter& f, size_t k) const;
  // The k rows of one (kind, backend, task) group most similar to q, best first.
  std::vector<Hit> group_top(const TermVector& q, ItemKind kind, const std::string& backend,
                             const std::string& task, size_t k);

 private:
  struct Row {
    int64_t id;
    TermVector terms;
    std::vector<uint32_t> dense;  // terms[i]'s dense id
  };
  // What a filter reads of a row, apart from the row: a search tests it for every touched row.
  struct RowKey {
    uint32_t backend;  // interned
    uint32_t task;     // interned
    ItemKind kind;
  };
  struct Posting {
    uint32_t row;
    float tf;
  };
  // A Filter resolved to interned names: cheap enough to test on every row.
  struct RowFilter {
    uint32_t backend = UINT32_MAX, exclude = UINT32_MAX, only_task = UINT32_MAX;
    unsigned kinds = 0;  // bit per ItemKind
    bool none = false;   // the backend is unknown: nothing passes
    bool operator()(const RowKey& r) const {
      // & rather than &&: evaluated for every touched row, branch-free.
      return !none & (r.backend == backend) & (r.task != exclude) &
             ((only_task == UINT32_MAX) | (r.task == only_task)) &
             bool(kinds >> unsigned(r.kind) & 1u);
    }
  };
  uint32_t intern(const std::string& s);
  RowFilter resolve(const Filter& f) const;
  void refresh_norms();
  std::vector<Hit> search(const TermVector& q, const RowFilter& pass, size_t k);
  std::vector<Hit> exact(const TermVector& q, const std::vector<uint32_t>& rows, size_t k) const;

  std::vector<Row> rows_;
  std::vector<RowKey> keys_;  // keys_[i] of rows_[i]
  std::unordered_map<uint32_t, std::vector<Posting>> postings_;
  std::vector<float> inv_norms_;  // 1 / the cached TF-IDF norm per row (0 where it is 0)
  size_t normed_ = 0;            // rows with a cached norm
  size_t normed_at_docs_ = 0;    // bank size when all norms were last recomputed
  std::vector<float> acc_;       // scratch accumulator, one per row
  std::vector<float> score_;     // scratch approximate score, one per row
  DocFreq df_;
  std::unordered_map<uint32_t, uint32_t> dense_of_;  // term -> dense id
  std::vector<uint32_t> dense_df_;                   // dense id -> document frequency
  std::unordered_map<std::string, uint32_t> names_;
  std::unordered_map<std::string, std::vector<uint32_t>> groups_;  // kind|backend|task -> rows
};

}  // namespace evk
