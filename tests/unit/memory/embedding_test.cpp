#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "memory/embedding.h"
#include "memory/index.h"

namespace evk {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CodeTokens, SplitsSnakeAndCamelCaseAndKeepsTheWhole) {
  auto t = code_tokens("conv_transpose2d evkForward HTTPServer x 42 a_b");
  EXPECT_TRUE(has(t, "conv_transpose2d"));
  EXPECT_TRUE(has(t, "conv"));
  EXPECT_TRUE(has(t, "transpose"));
  EXPECT_TRUE(has(t, "2d"));
  EXPECT_TRUE(has(t, "evkforward"));
  EXPECT_TRUE(has(t, "evk"));
  EXPECT_TRUE(has(t, "forward"));
  EXPECT_TRUE(has(t, "http"));
  EXPECT_TRUE(has(t, "server"));
  EXPECT_FALSE(has(t, "x"));   // one letter
  EXPECT_FALSE(has(t, "42"));  // a number
}

TEST(TermVectors, RoundTripThroughTheBlobEncoding) {
  TermCounter c;
  c.add_text("relu relu sigmoid matmul_kernel");
  TermVector v = c.finish();
  std::string blob = encode_terms(v);
  TermVector w = decode_terms(blob.data(), blob.size());
  ASSERT_EQ(v.size(), w.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].term, w[i].term);
    EXPECT_EQ(v[i].tf, w[i].tf);
  }
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), [](auto a, auto b) { return a.term < b.term; }));
}

TermVector terms(const std::string& s) {
  TermCounter c;
  c.add_text(s);
  return c.finish();
}

TEST(TfIdf, CosineIsOneForItselfZeroForDisjointAndIdfDownweightsCommonTerms) {
  DocFreq df;
  auto a = terms("relu kernel float loop"), b = terms("sigmoid kernel float loop"),
       c = terms("matmul blocking tiles");
  for (const auto* v : {&a, &b, &c}) df.add(*v);
  EXPECT_NEAR(tfidf_cosine(a, a, df), 1.0, 1e-9);
  EXPECT_EQ(tfidf_cosine(a, c, df), 0.0);
  double ab = tfidf_cosine(a, b, df);
  EXPECT_GT(ab, 0.0);
  EXPECT_LT(ab, 1.0);
  // The more documents share "kernel float loop", the less they count.
  for (int i = 0; i < 50; ++i) df.add(terms("kernel float loop"));
  EXPECT_LT(tfidf_cosine(a, b, df), ab);
}

// The two-phase search must agree with the plain exact scan on a bank large enough to use the
// approximate shortlist.
TEST(SimilarityIndex, TopMatchesBruteForceOnALargeBank) {
  std::mt19937 rng(7);
  std::vector<std::string> vocab;
  for (int i = 0; i < 3000; ++i) vocab.push_back("w" + std::to_string(i) + "q");
  auto doc = [&](int words) {
    std::string s;
    for (int i = 0; i < words; ++i) {
      // Skewed word choice, like real text: small indices are common.
      double u = std::uniform_real_distribution<double>(0, 1)(rng);
      s += vocab[static_cast<size_t>(u * u * u * 2999)] + " ";
    }
    return s;
  };
  SimilarityIndex ix;
  for (int i = 0; i < 3000; ++i)
    ix.add(i + 1, i % 2 ? ItemKind::Trace : ItemKind::Experience, "cpu", "t" + std::to_string(i % 37),
           terms(doc(60)));
  // All rows, then half of them (the shortlist's sampled floor sees the others as left out).
  std::vector<SimilarityIndex::Filter> filters = {{"cpu", {}, ""},
                                                  {"cpu", {ItemKind::Trace}, "t3"}};
  int agree = 0, total = 0;
  for (int q = 0; q < 40; ++q) {
    const SimilarityIndex::Filter& f = filters[static_cast<size_t>(q % 2)];
    TermVector qv = terms(doc(40));
    auto fast = ix.top(qv, f, 30), slow = ix.brute_force_top(qv, f, 30);
    ASSERT_EQ(fast.size(), 30u);
    EXPECT_EQ(fast[0].id, slow[0].id);
    for (const auto& h : slow)
      agree += std::count_if(fast.begin(), fast.end(), [&](auto x) { return x.id == h.id; });
    total += 30;
    for (size_t i = 1; i < fast.size(); ++i) EXPECT_GE(fast[i - 1].similarity, fast[i].similarity);
  }
  EXPECT_GE(static_cast<double>(agree) / total, 0.95);
}

// The re-rank's similarity is tfidf_cosine under the index's current document frequencies
// (its flat idf table must not drift from DocFreq::idf), also after more items arrive.
TEST(SimilarityIndex, SimilarityIsTheExactCosineUnderCurrentFrequencies) {
  SimilarityIndex ix;
  std::vector<TermVector> docs = {terms("relu kernel loop tail"), terms("softmax row max exp"),
                                  terms("relu relu vector width"), terms("matmul tile loop")};
  auto check = [&] {
    TermVector q = terms("relu loop tail kernel");
    for (const auto& h : ix.top(q, {"cpu", {}, ""}, 10))
      EXPECT_NEAR(h.similarity, tfidf_cosine(q, docs[static_cast<size_t>(h.id - 1)], ix.doc_freq()), 1e-6)
          << "item " << h.id;
  };
  for (size_t i = 0; i < docs.size(); ++i) ix.add(static_cast<int64_t>(i + 1), ItemKind::Trace, "cpu", "t", docs[i]);
  check();
  docs.push_back(terms("relu tail again"));
  ix.add(5, ItemKind::Trace, "cpu", "u", docs.back());
  check();
}

TEST(SimilarityIndex, FiltersByBackendKindAndExcludedTask) {
  SimilarityIndex ix;
  ix.add(1, ItemKind::Trace, "cpu", "a", terms("relu kernel"));
  ix.add(2, ItemKind::Trace, "cuda", "a", terms("relu kernel"));
  ix.add(3, ItemKind::Api, "cpu", "", terms("relu kernel"));
  ix.add(4, ItemKind::Trace, "cpu", "b", terms("relu kernel"));
  auto hits = ix.top(terms("relu"), {"cpu", {ItemKind::Trace}, "b"}, 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 1);
}

}  // namespace
}  // namespace evk
