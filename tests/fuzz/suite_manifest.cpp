// A suite folder's manifest (evokernel-suite.json), which a user may write by hand: read as
// `tasks list` and `run` read it. Malformed is a UsageError naming the file; anything else
// thrown is a finding.
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "fuzz_util.h"
#include "tasks/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  evk::fuzz::write_input(evk::kSuiteManifest, data, size);
  try {
    evk::suite_manifest_levels(evk::fuzz::scratch());
  } catch (const evk::UsageError&) {
  }
  return 0;
}
