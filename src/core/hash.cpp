#include "core/hash.h"

#include <openssl/evp.h>

#include "core/error.h"

namespace evk {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr))
    throw Error("sha256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

std::string short_hash(std::string_view bytes, size_t n) { return sha256_hex(bytes).substr(0, n); }

}  // namespace evk
