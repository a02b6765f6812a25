// A keyed digest of a call's output bytes, so that the parent can tell "the same bytes as an
// output it already compared and accepted" with one read pass instead of keeping a copy of it
// (a copy costs an allocation, page faults and a second pass for every memcmp).
//
// The key is drawn from std::random_device per OutputDigest and stays in the parent's memory:
// the kernel never sees it nor any digest, so it cannot aim a wrong output at an accepted one's
// digest; it can only guess, and a blind guess at 128 keyed bits does not land. It is not a
// cryptographic MAC and is never used where the other side knows the key.
#pragma once
#include <cstddef>
#include <cstdint>

namespace evk {

struct Digest {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Digest&) const = default;
};

class OutputDigest {
 public:
  OutputDigest();  // a fresh random key
  // The digest of `n` bytes at `p` (any alignment); the length is part of it.
  Digest of(const uint8_t* p, size_t n) const;

 private:
  uint64_t key_[8];  // lane seeds and multipliers (odd)
};

}  // namespace evk
