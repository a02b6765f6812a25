#include "verify/output_digest.h"

#include <bit>
#include <cstring>
#include <random>

namespace evk {

namespace {

// One step of a lane: xor the word in, multiply by an odd key (a bijection), rotate. Four
// lanes take consecutive words, so the multiplies overlap and the pass runs at memory speed.
inline uint64_t step(uint64_t h, uint64_t w, uint64_t mul) {
  return std::rotl((h ^ w) * mul, 29);
}

// A final mix (murmur3's finaliser) so that every key and lane bit reaches every output bit.
inline uint64_t fmix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

}  // namespace

OutputDigest::OutputDigest() {
  std::random_device rd;
  for (uint64_t& k : key_) k = (uint64_t{rd()} << 32) ^ rd();
  for (int i = 4; i < 8; ++i) key_[i] |= 1;  // multipliers: odd
}

Digest OutputDigest::of(const uint8_t* p, size_t n) const {
  uint64_t a = key_[0], b = key_[1], c = key_[2], d = key_[3];
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a = step(a, w[0], key_[4]);
    b = step(b, w[1], key_[5]);
    c = step(c, w[2], key_[6]);
    d = step(d, w[3], key_[7]);
  }
  uint64_t tail[4] = {0, 0, 0, 0};
  std::memcpy(tail, p + i, n - i);
  a = step(a, tail[0], key_[4]);
  b = step(b, tail[1], key_[5]);
  c = step(c, tail[2], key_[6]);
  d = step(d, tail[3] ^ n, key_[7]);
  Digest r;
  r.lo = fmix(a ^ fmix(b + key_[2]) ^ std::rotl(c, 17));
  r.hi = fmix(b ^ fmix(c + key_[3]) ^ std::rotl(d, 41) ^ a);
  return r;
}

}  // namespace evk
