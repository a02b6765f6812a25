#include "memory/embedding.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

namespace evk {

namespace {

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool keep(const std::string& t) {
  if (t.size() < 2) return false;
  return !std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Splits one identifier into its pieces: at '_', at lower->Upper, at the last capital of an
// acronym followed by lower case (HTTPServer -> HTTP Server), and letter<->digit except that
// a digit run followed by lower-case letters stays with them ("2d").
void split_identifier(std::string_view id, std::vector<std::string>& out) {
  std::string cur;
  auto flush = [&] {
    if (keep(cur)) out.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < id.size(); ++i) {
    char c = id[i];
    if (c == '_') {
      flush();
      continue;
    }
    if (!cur.empty()) {
      char p = id[i - 1];
      bool up = std::isupper(static_cast<unsigned char>(c));
      bool p_low = std::islower(static_cast<unsigned char>(p));
      bool p_up = std::isupper(static_cast<unsigned char>(p));
      bool next_low = i + 1 < id.size() && std::islower(static_cast<unsigned char>(id[i + 1]));
      bool digit = std::isdigit(static_cast<unsigned char>(c));
      bool p_digit = std::isdigit(static_cast<unsigned char>(p));
      if ((up && p_low) || (up && p_up && next_low) || (digit && !p_digit)) flush();
    }
    cur += lower(c);
  }
  flush();
}

}  // namespace

std::vector<std::string> code_tokens(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    if (!is_word(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && is_word(text[j])) ++j;
    std::string_view id = text.substr(i, j - i);
    size_t before = out.size();
    split_identifier(id, out);
    // Also keep the compound identifier itself when splitting changed it ("alpha_0").
    std::string whole;
    for (char c : id) whole += lower(c);
    bool single = out.size() - before == 1 && out.back() == whole;
    if (!single && keep(whole)) out.push_back(whole);
    i = j;
  }
  return out;
}

uint32_t term_hash(std::string_view token) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (char c : token) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  }
  return h;
}

void TermCounter::add_text(std::string_view text, double weight) {
  for (const auto& t : code_tokens(text)) counts_[term_hash(t)] += weight;
}

void TermCounter::add_token(std::string_view token, double weight) {
  std::string t;
  for (char c : token) t += lower(c);
  if (!t.empty()) counts_[term_hash(t)] += weight;
}

TermVector TermCounter::finish() const {
  TermVector v;
  v.reserve(counts_.size());
  for (const auto& [term, n] : counts_)
    if (n > 0) v.push_back({term, static_cast<float>(1.0 + std::log(n))});
  std::sort(v.begin(), v.end(), [](const TermWeight& a, const TermWeight& b) { return a.term < b.term; });
  return v;
}

std::string encode_terms(const TermVector& v) {
  std::string s(v.size() * 8, '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    std::memcpy(&s[i * 8], &v[i].term, 4);
    std::memcpy(&s[i * 8 + 4], &v[i].tf, 4);
  }
  return s;
}

TermVector decode_terms(const void* data, size_t n) {
  TermVector v(n / 8);
  const char* p = static_cast<const char*>(data);
  for (size_t i = 0; i < v.size(); ++i) {
    std::memcpy(&v[i].term, p + i * 8, 4);
    std::memcpy(&v[i].tf, p + i * 8 + 4, 4);
  }
  return v;
}

void DocFreq::add(const TermVector& v) {
  for (const auto& t : v) ++df_[t.term];
  ++docs_;
}

void DocFreq::remove(const TermVector& v) {
  for (const auto& t : v) {
    auto it = df_.find(t.term);
    if (it != df_.end() && --it->second == 0) df_.erase(it);
  }
  if (docs_ > 0) --docs_;
}

float DocFreq::grow_log1p(size_t n) const {
  size_t from = log1p_.size();
  log1p_.resize(std::max(n + 1, 2 * from + 1024));
  for (size_t i = from; i < log1p_.size(); ++i) log1p_[i] = static_cast<float>(std::log1p(double(i)));
  return log1p_[n];
}

float DocFreq::idf(uint32_t term) const {
  auto it = df_.find(term);
  size_t df = it == df_.end() ? 0 : it->second;
  return log1p_count(docs_) - log1p_count(df) + 1.0f;
}

double tfidf_norm(const TermVector& v, const DocFreq& df) {
  double s = 0;
  for (const auto& t : v) {
    double w = t.tf * df.idf(t.term);
    s += w * w;
  }
  return std::sqrt(s);
}

double tfidf_cosine(const TermVector& a, const TermVector& b, const DocFreq& df) {
  double dot = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].term < b[j].term) {
      ++i;
    } else if (b[j].term < a[i].term) {
      ++j;
    } else {
      double idf = df.idf(a[i].term);
      dot += a[i].tf * b[j].tf * idf * idf;
      ++i, ++j;
    }
  }
  if (dot == 0) return 0;
  return dot / (tfidf_norm(a, df) * tfidf_norm(b, df));
}

}  // namespace evk
