// A cassette (replay:FILE), which a user may edit or share: loaded, then asked a request that
// it most likely lacks, so that the miss message compares it with every recorded one. A
// malformed line is an evk::Error naming file:line; a miss is a ProviderError; anything else
// thrown is a finding.
#include "llm/cassette.h"

#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = evk::fuzz::write_input("cassette.jsonl", data, size);
  try {
    evk::ReplayProvider replay(file);
    evk::CompletionOptions opt;
    opt.seed = 3;
    replay.complete({{"system", "You write kernels."}, {"user", "relu"}}, opt);
  } catch (const evk::Error&) {
  }
  return 0;
}
