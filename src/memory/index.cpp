#include "memory/index.h"

#include <algorithm>
#include <cmath>

namespace evk {

namespace {

std::string group_key(ItemKind kind, uint32_t backend, uint32_t task) {
  return kind_name(kind) + "|" + std::to_string(backend) + "|" + std::to_string(task);
}

bool better(const SimilarityIndex::Hit& a, const SimilarityIndex::Hit& b) {
  return a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id;
}

}  // namespace

uint32_t SimilarityIndex::intern(const std::string& s) {
  auto [it, inserted] = names_.try_emplace(s, static_cast<uint32_t>(names_.size()));
  return it->second;
}

void SimilarityIndex::add(int64_t id, ItemKind kind, const std::string& backend,
                          const std::string& task, TermVector terms) {
  df_.add(terms);
  uint32_t row = static_cast<uint32_t>(rows_.size());
  for (const auto& t : terms) postings_[t.term].push_back({row, t.tf});
  Row r{id, kind, intern(backend), intern(task), std::move(terms)};
  groups_[group_key(kind, r.backend, r.task)].push_back(row);
  rows_.push_back(std::move(r));
}

void SimilarityIndex::clear() { *this = SimilarityIndex(); }

void SimilarityIndex::refresh_norms() {
  size_t from = normed_;
  if (rows_.size() * 10 > normed_at_docs_ * 11 + 160) {  // idf drifted: recompute all
    from = 0;
    normed_at_docs_ = rows_.size();
  }
  norms_.resize(rows_.size());
  for (size_t i = from; i < rows_.size(); ++i)
    norms_[i] = static_cast<float>(tfidf_norm(rows_[i].terms, df_));
  normed_ = rows_.size();
}

SimilarityIndex::RowPred SimilarityIndex::filter_pred(const Filter& f) const {
  auto b = names_.find(f.backend);
  if (b == names_.end()) return [](const Row&) { return false; };
  auto ex = f.exclude_task.empty() ? names_.end() : names_.find(f.exclude_task);
  uint32_t backend = b->second, exclude = ex == names_.end() ? UINT32_MAX : ex->second;
  return [backend, exclude, kinds = f.kinds](const Row& r) {
    if (r.backend != backend || r.task == exclude) return false;
    return kinds.empty() || std::find(kinds.begin(), kinds.end(), r.kind) != kinds.end();
  };
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::exact(const TermVector& q,
                                                         const std::vector<uint32_t>& rows,
                                                         size_t k) const {
  std::vector<Hit> hits;
  hits.reserve(rows.size());
  for (uint32_t r : rows) hits.push_back({rows_[r].id, tfidf_cosine(q, rows_[r].terms, df_)});
  size_t n = std::min(k, hits.size());
  std::partial_sort(hits.begin(), hits.begin() + static_cast<long>(n), hits.end(), better);
  hits.resize(n);
  return hits;
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::search(const TermVector& q,
                                                          const RowPred& pass, size_t k) {
  if (k == 0) return {};
  size_t shortlist = std::max(4 * k, k + 64);
  refresh_norms();
  // Query terms held by the bank, rarest (highest idf) first.
  struct QTerm {
    const std::vector<Posting>* postings;
    float weight;  // q_tf * idf^2
  };
  std::vector<QTerm> terms;
  for (const auto& t : q) {
    auto p = postings_.find(t.term);
    if (p == postings_.end()) continue;
    float idf = df_.idf(t.term);
    terms.push_back({&p->second, t.tf * idf * idf});
  }
  std::sort(terms.begin(), terms.end(),
            [](const QTerm& a, const QTerm& b) { return a.postings->size() < b.postings->size(); });
  acc_.assign(rows_.size(), 0.0f);
  std::vector<uint32_t> touched;
  auto accumulate = [&](const QTerm& t) {
    for (const auto& p : *t.postings) {
      if (acc_[p.row] == 0.0f) touched.push_back(p.row);
      acc_[p.row] += t.weight * p.tf;
    }
  };
  size_t common = rows_.size() > 2000 ? rows_.size() / 2 : SIZE_MAX;
  size_t done = 0;
  for (; done < terms.size() && terms[done].postings->size() <= common; ++done) accumulate(terms[done]);
  std::vector<uint32_t> cand;
  auto collect = [&] {
    cand.clear();
    for (uint32_t r : touched)
      if (pass(rows_[r])) cand.push_back(r);
  };
  collect();
  if (cand.size() < shortlist && done < terms.size()) {  // too few: take the common terms too
    for (; done < terms.size(); ++done) accumulate(terms[done]);
    collect();
  }
  if (cand.size() > shortlist) {
    auto score = [&](uint32_t r) { return norms_[r] > 0 ? acc_[r] / norms_[r] : 0.0f; };
    std::nth_element(cand.begin(), cand.begin() + static_cast<long>(shortlist), cand.end(),
                     [&](uint32_t a, uint32_t b) { return score(a) > score(b); });
    cand.resize(shortlist);
  }
  std::vector<Hit> hits = exact(q, cand, k);
  if (hits.size() < k) {  // pad with rows sharing nothing with the query, by id
    for (size_t r = 0; r < rows_.size() && hits.size() < k; ++r)
      if (acc_[r] == 0.0f && pass(rows_[r])) hits.push_back({rows_[r].id, 0.0});
  }
  return hits;
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::top(const TermVector& q, const Filter& f,
                                                       size_t k) {
  return search(q, filter_pred(f), k);
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::brute_force_top(const TermVector& q,
                                                                   const Filter& f,
                                                                   size_t k) const {
  auto pass = filter_pred(f);
  std::vector<uint32_t> all;
  for (size_t i = 0; i < rows_.size(); ++i)
    if (pass(rows_[i])) all.push_back(static_cast<uint32_t>(i));
  return exact(q, all, k);
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::group_top(const TermVector& q, ItemKind kind,
                                                             const std::string& backend,
                                                             const std::string& task, size_t k) {
  auto b = names_.find(backend), t = names_.find(task);
  if (b == names_.end() || t == names_.end()) return {};
  auto g = groups_.find(group_key(kind, b->second, t->second));
  if (g == groups_.end()) return {};
  if (g->second.size() <= 256) return exact(q, g->second, k);
  uint32_t bi = b->second, ti = t->second;
  return search(q, [=](const Row& r) { return r.kind == kind && r.backend == bi && r.task == ti; }, k);
}

}  // namespace evk
