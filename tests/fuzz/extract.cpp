// A model's reply, the candidate's source taken from it: fenced blocks of any shape, unclosed
// fences, long runs of backticks and parentheses. extract_code must never throw or read out of
// bounds, and what it returns is a part of the reply.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "llm/provider.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string reply(reinterpret_cast<const char*>(data), size);
  auto code = evk::extract_code(reply);
  // Each line of a block is a line of the reply (less a trailing \r) and its newline.
  if (code && code->size() > reply.size() + 1) std::abort();
  return 0;
}
