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
  std::vector<uint32_t> dense;
  dense.reserve(terms.size());
  for (const auto& t : terms) {
    postings_[t.term].push_back({row, t.tf});
    auto [it, fresh] = dense_of_.try_emplace(t.term, static_cast<uint32_t>(dense_df_.size()));
    if (fresh) dense_df_.push_back(0);
    ++dense_df_[it->second];
    dense.push_back(it->second);
  }
  Row r{id, kind, intern(backend), intern(task), std::move(terms), std::move(dense)};
  groups_[group_key(kind, r.backend, r.task)].push_back(row);
  rows_.push_back(std::move(r));
}

void SimilarityIndex::clear() { *this = SimilarityIndex(); }

void SimilarityIndex::refresh_norms() {
  norms_.resize(rows_.size());
  if (rows_.size() * 10 > normed_at_docs_ * 11 + 160) {
    // The idf has drifted: recompute every norm, term by term over the postings so that each
    // idf is computed once.
    std::vector<double> sq(rows_.size(), 0.0);
    for (const auto& [term, list] : postings_) {
      double idf = df_.idf(term);
      for (const auto& p : list) sq[p.row] += double(p.tf) * p.tf * idf * idf;
    }
    for (size_t i = 0; i < rows_.size(); ++i) norms_[i] = static_cast<float>(std::sqrt(sq[i]));
    normed_at_docs_ = rows_.size();
  } else {
    for (size_t i = normed_; i < rows_.size(); ++i)
      norms_[i] = static_cast<float>(tfidf_norm(rows_[i].terms, df_));
  }
  normed_ = rows_.size();
}

SimilarityIndex::RowFilter SimilarityIndex::resolve(const Filter& f) const {
  RowFilter rf;
  auto b = names_.find(f.backend);
  if (b == names_.end()) {
    rf.none = true;
    return rf;
  }
  rf.backend = b->second;
  auto ex = f.exclude_task.empty() ? names_.end() : names_.find(f.exclude_task);
  if (ex != names_.end()) rf.exclude = ex->second;
  if (f.kinds.empty()) rf.kinds = ~0u;
  for (ItemKind k : f.kinds) rf.kinds |= 1u << unsigned(k);
  return rf;
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::exact(const TermVector& q,
                                                         const std::vector<uint32_t>& rows,
                                                         size_t k) const {
  // The query's TF-IDF weights and norm once; per row a merge join and the row's norm under
  // the current idf (what tfidf_cosine computes, without redoing the query side).
  std::vector<float> qw(q.size());
  double qn = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    qw[i] = q[i].tf * df_.idf(q[i].term);
    qn += double(qw[i]) * qw[i];
  }
  qn = std::sqrt(qn);
  const float log_docs = df_.log1p_count(df_.docs());
  std::vector<Hit> hits;
  hits.reserve(rows.size());
  for (uint32_t r : rows) {
    const TermVector& d = rows_[r].terms;
    const std::vector<uint32_t>& dense = rows_[r].dense;
    double dot = 0, dn = 0;
    size_t i = 0;
    for (size_t j = 0; j < d.size(); ++j) {
      const TermWeight& t = d[j];
      float idf = log_docs - df_.log1p_count(dense_df_[dense[j]]) + 1.0f;  // DocFreq::idf
      double w = double(t.tf) * idf;
      dn += w * w;
      while (i < q.size() && q[i].term < t.term) ++i;
      if (i < q.size() && q[i].term == t.term) dot += w * qw[i];
    }
    double sim = dot > 0 && qn > 0 ? dot / (qn * std::sqrt(dn)) : 0.0;
    hits.push_back({rows_[r].id, sim});
  }
  size_t n = std::min(k, hits.size());
  std::partial_sort(hits.begin(), hits.begin() + static_cast<long>(n), hits.end(), better);
  hits.resize(n);
  return hits;
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::search(const TermVector& q,
                                                          const RowFilter& pass, size_t k) {
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
  // The inner loop is only scattered adds; rows touched are found by one scan afterwards.
  auto accumulate = [&](const QTerm& t) {
    float* acc = acc_.data();
    const float w = t.weight;
    for (const auto& p : *t.postings) acc[p.row] += w * p.tf;
  };
  size_t common = rows_.size() > 2000 ? rows_.size() / 2 : SIZE_MAX;
  size_t done = 0;
  for (; done < terms.size() && terms[done].postings->size() <= common; ++done) accumulate(terms[done]);
  std::vector<std::pair<float, uint32_t>> scored;  // approximate cosine (cached norm), row
  auto collect = [&] {
    scored.clear();
    for (uint32_t r = 0; r < acc_.size(); ++r)
      if (acc_[r] != 0.0f && pass(rows_[r]))
        scored.push_back({norms_[r] > 0 ? acc_[r] / norms_[r] : 0.0f, r});
  };
  collect();
  if (scored.size() < shortlist && done < terms.size()) {  // too few: take the common terms too
    for (; done < terms.size(); ++done) accumulate(terms[done]);
    collect();
  }
  if (scored.size() > shortlist) {
    std::nth_element(scored.begin(), scored.begin() + static_cast<long>(shortlist), scored.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    scored.resize(shortlist);
  }
  std::vector<uint32_t> cand;
  for (const auto& [score, r] : scored) cand.push_back(r);
  std::vector<Hit> hits = exact(q, cand, k);
  if (hits.size() < k) {  // pad with rows sharing nothing with the query, by id
    for (size_t r = 0; r < rows_.size() && hits.size() < k; ++r)
      if (acc_[r] == 0.0f && pass(rows_[r])) hits.push_back({rows_[r].id, 0.0});
  }
  return hits;
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::top(const TermVector& q, const Filter& f,
                                                       size_t k) {
  return search(q, resolve(f), k);
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::brute_force_top(const TermVector& q,
                                                                   const Filter& f,
                                                                   size_t k) const {
  RowFilter pass = resolve(f);
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
  RowFilter rf;
  rf.backend = b->second;
  rf.only_task = t->second;
  rf.kinds = 1u << unsigned(kind);
  return search(q, rf, k);
}

}  // namespace evk
