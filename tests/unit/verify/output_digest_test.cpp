// The keyed output digest (verify/output_digest.h): equal bytes give equal digests under one
// key; a change of any one word, wherever it falls (each of the four lanes, the tail), or of
// the length changes the digest; two keys give different digests of the same bytes.
#include "verify/output_digest.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

using namespace evk;

namespace {

std::vector<uint8_t> bytes(size_t n) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), uint8_t{7});
  return v;
}

}  // namespace

TEST(OutputDigest, EqualBytesEqualDigests) {
  OutputDigest d;
  auto a = bytes(1000), b = bytes(1000);
  EXPECT_EQ(d.of(a.data(), a.size()), d.of(b.data(), b.size()));
}

TEST(OutputDigest, EveryChangedByteChangesIt) {
  OutputDigest d;
  auto a = bytes(203);  // six whole 32-byte rows and an 11-byte tail
  const Digest ref = d.of(a.data(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    auto b = a;
    b[i] ^= 0x40;
    EXPECT_FALSE(d.of(b.data(), b.size()) == ref) << "byte " << i;
  }
}

TEST(OutputDigest, LengthAndKeyAreInIt) {
  OutputDigest d, e;
  auto a = bytes(64);
  a.push_back(0);
  EXPECT_FALSE(d.of(a.data(), 64) == d.of(a.data(), 65));  // a zero byte more
  EXPECT_FALSE(d.of(a.data(), 64) == e.of(a.data(), 64));
  EXPECT_FALSE(d.of(a.data(), 0) == e.of(a.data(), 0));
}

TEST(OutputDigest, SwappedWordsDiffer) {
  // The same words in another order: a sum of per-word hashes would not see it.
  OutputDigest d;
  std::vector<uint64_t> w = {1, 2, 3, 4, 5, 6, 7, 8};
  auto s = w;
  std::swap(s[0], s[4]);  // the same lane, two rows
  auto p = [](const std::vector<uint64_t>& v) {
    return reinterpret_cast<const uint8_t*>(v.data());
  };
  EXPECT_FALSE(d.of(p(w), 64) == d.of(p(s), 64));
  s = w;
  std::swap(s[0], s[1]);  // two lanes
  EXPECT_FALSE(d.of(p(w), 64) == d.of(p(s), 64));
}
