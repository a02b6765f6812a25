// What the parent reads from a runner, which runs the candidate's code and so may say
// anything: its stdout events, and each control-channel line as the reply the parent awaits
// ("done" replies taken apart field by field). Any exception but evk::Error from the "done"
// parse is a finding; the others must not throw at all.
#include "verify/runner_protocol.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  evk::parse_runner_output(text);
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    for (const char* expect : {"ready", "ok", "go", "done", "checked", "result"}) {
      auto reply = evk::parse_runner_reply(line, expect);
      if (!reply || std::string(expect) != "done") continue;
      try {
        evk::parse_runner_done(*reply);
      } catch (const evk::Error&) {
      }
    }
  }
  return 0;
}
