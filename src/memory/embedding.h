// The built-in text embedding: hashed TF-IDF over code-aware tokens, compared by cosine.
// No model is needed and results are deterministic. Terms are 32-bit hashes of tokens, so a
// vocabulary never has to be stored; document frequencies are counted over the items held.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace evk {

// Identifiers are split at underscores, camelCase humps and letter/digit boundaries and
// lower-cased; the whole identifier is kept as a token too, so "conv_transpose2d" yields
// conv_transpose2d, conv, transpose, 2d... Pure numbers and one-letter pieces are dropped.
std::vector<std::string> code_tokens(std::string_view text);

uint32_t term_hash(std::string_view token);

struct TermWeight {
  uint32_t term;
  float tf;  // sublinear: 1 + ln(weighted count)
};
// Invariant: sorted by term, each term once.
using TermVector = std::vector<TermWeight>;

// Accumulates weighted token counts from several fields, then yields the TermVector.
class TermCounter {
 public:
  void add_text(std::string_view text, double weight = 1.0);
  void add_token(std::string_view token, double weight = 1.0);  // taken as one token, lowered
  TermVector finish() const;

 private:
  std::unordered_map<uint32_t, double> counts_;
};

// Compact storage (little-endian u32 term, f32 tf pairs) for the database.
std::string encode_terms(const TermVector& v);
TermVector decode_terms(const void* data, size_t n);

// Document frequencies over the items held; idf = ln((1 + docs) / (1 + df)) + 1, so a term in
// every document still counts a little and an unseen term counts most.
class DocFreq {
 public:
  void add(const TermVector& v);
  void remove(const TermVector& v);
  float idf(uint32_t term) const;
  size_t docs() const { return docs_; }
  // ln(1 + n), tabulated: idf is on every hot path (the similarity index's re-rank reads it
  // per row term, from its own flat document frequencies).
  float log1p_count(size_t n) const { return n < log1p_.size() ? log1p_[n] : grow_log1p(n); }

 private:
  float grow_log1p(size_t n) const;  // extends the table past n, returns ln(1 + n)

  std::unordered_map<uint32_t, uint32_t> df_;
  size_t docs_ = 0;
  mutable std::vector<float> log1p_;  // log1p_[n] = ln(1 + n)
};

// L2 norm of the TF-IDF vector under the current document frequencies.
double tfidf_norm(const TermVector& v, const DocFreq& df);
// Cosine of the two TF-IDF vectors; 0 when either is empty.
double tfidf_cosine(const TermVector& a, const TermVector& b, const DocFreq& df);

}  // namespace evk
