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

// A floor that about 2n of the `count` passing scores reach (the others are -1), estimated
// from every kStride-th row; -1 (every score passes) when too few pass for a sample.
float shortlist_floor(const std::vector<float>& scores, size_t count, size_t n) {
  constexpr size_t kStride = 16;
  if (count < 16 * n) return -1.0f;
  std::vector<float> sample;
  sample.reserve(scores.size() / kStride + 1);
  for (size_t r = 0; r < scores.size(); r += kStride) sample.push_back(scores[r]);
  size_t j = std::min(sample.size() - 1, 2 * n / kStride + 8);
  std::nth_element(sample.begin(), sample.begin() + static_cast<long>(j), sample.end(),
                   std::greater<>());
  return sample[j];
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
  RowKey key{intern(backend), intern(task), kind};
  groups_[group_key(kind, key.backend, key.task)].push_back(row);
  rows_.push_back({id, std::move(terms), std::move(dense)});
  keys_.push_back(key);
}

void SimilarityIndex::clear() { *this = SimilarityIndex(); }

void SimilarityIndex::refresh_norms() {
  inv_norms_.resize(rows_.size());
  auto inverse = [](double norm) {
    float n = static_cast<float>(norm);
    return n > 0 ? 1.0f / n : 0.0f;
  };
  if (rows_.size() * 10 > normed_at_docs_ * 11 + 160) {
    // The idf has drifted: recompute every norm, term by term over the postings so that each
    // idf is computed once.
    std::vector<double> sq(rows_.size(), 0.0);
    for (const auto& [term, list] : postings_) {
      double idf = df_.idf(term);
      for (const auto& p : list) sq[p.row] += double(p.tf) * p.tf * idf * idf;
    }
    for (size_t i = 0; i < rows_.size(); ++i) inv_norms_[i] = inverse(std::sqrt(sq[i]));
    normed_at_docs_ = rows_.size();
  } else {
    for (size_t i = normed_; i < rows_.size(); ++i)
      inv_norms_[i] = inverse(tfidf_norm(rows_[i].terms, df_));
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
  // One branch-free sequential pass: score_[r] is the approximate cosine (cached norm) of a
  // touched, passing row and -1 for the others.
  auto score_rows = [&] {
    score_.resize(rows_.size());
    const float *acc = acc_.data(), *inv = inv_norms_.data();
    const RowKey* key = keys_.data();
    float* sc = score_.data();
    const uint32_t rows = static_cast<uint32_t>(acc_.size());
    size_t n = 0;
    for (uint32_t r = 0; r < rows; ++r) {
      bool in = (acc[r] != 0.0f) & pass(key[r]);
      n += in;
      sc[r] = in ? acc[r] * inv[r] : -1.0f;
    }
    return n;
  };
  size_t passing = score_rows();
  if (passing < shortlist && done < terms.size()) {  // too few: take the common terms too
    for (; done < terms.size(); ++done) accumulate(terms[done]);
    passing = score_rows();
  }
  // The shortlist: the best `shortlist` scores, partitioned among the rows at or above the
  // sampled floor, or among all when fewer reach it.
  std::vector<std::pair<float, uint32_t>> scored;
  auto gather = [&](float floor) {
    scored.clear();
    const float lo = std::max(floor, 0.0f);  // -1 marks the rows left out
    const float* sc = score_.data();
    const uint32_t n = static_cast<uint32_t>(score_.size());
    for (uint32_t r = 0; r < n; ++r)
      if (sc[r] >= lo) scored.push_back({sc[r], r});
  };
  float floor = shortlist_floor(score_, passing, shortlist);
  gather(floor);
  if (scored.size() < shortlist && floor > 0.0f) gather(-1.0f);
  if (scored.size() > shortlist) {
    std::nth_element(scored.begin(), scored.begin() + static_cast<long>(shortlist), scored.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    scored.resize(shortlist);
  }
  std::vector<uint32_t> cand;
  for (const auto& [score, r] : scored) cand.push_back(r);
  std::vector<Hit> hits = exact(q, cand, k);
  if (hits.size() < k) {  // pad with rows sharing nothing with the query, by id
    for (size_t r = 0; r < rows_.size() && hits.size() < k; ++r)
      if (acc_[r] == 0.0f && pass(keys_[r])) hits.push_back({rows_[r].id, 0.0});
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
    if (pass(keys_[i])) all.push_back(static_cast<uint32_t>(i));
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
