// Content hashes used as cache keys (task files, sources, prompts).
#pragma once
#include <string>
#include <string_view>

namespace evk {

// Lower-case hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);

// First n hex characters of sha256_hex: short, stable ids for folder names.
std::string short_hash(std::string_view bytes, size_t n = 16);

}  // namespace evk
