// A user's evokernel.toml, loaded as --config loads it. Malformed is a UsageError naming the
// file; anything else thrown is a finding.
#include "core/config.h"

#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = evk::fuzz::write_input("evokernel.toml", data, size);
  try {
    evk::Config::load(evk::fuzz::scratch(), file.string());
  } catch (const evk::UsageError&) {
  }
  return 0;
}
