// What the oracle (a Python process running the task's own code) returns about a task: its
// one-line description as `describe` prints it, and a reference's meta.json. A malformed one
// is a json::exception (description) or an evk::Error naming the file (meta.json); anything
// else thrown is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "core/json_read.h"
#include "fuzz_util.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    evk::task_info_from_json(
        evk::parse_json(std::string_view(reinterpret_cast<const char*>(data), size)), {});
  } catch (const nlohmann::json::exception&) {
  }
  evk::fuzz::write_input("meta.json", data, size);
  try {
    evk::load_reference(evk::fuzz::scratch());
  } catch (const evk::Error&) {
  }
  return 0;
}
