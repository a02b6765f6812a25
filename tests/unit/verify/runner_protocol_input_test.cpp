// What the parent reads from a runner is written by the candidate's process: any line may be
// truncated, of the wrong type, oversized or deeply nested. None of it throws out of the
// readers or crashes the parent: stdout lines that are not events are ignored, a control line
// that is not the awaited reply is nullopt (a violation), a "done" reply with a field of the
// wrong type is an Error naming the field.
#include <gtest/gtest.h>

#include "core/error.h"
#include "verify/runner_protocol.h"

namespace evk {
namespace {
using nlohmann::json;

std::string deep(size_t n) {
  return std::string(n, '[') + std::string(n, ']');
}

TEST(RunnerProtocolInput, StdoutEventsOfTheWrongShapeAreReadSafely) {
  auto r = parse_runner_output(
      "{\"event\":\"load_error\",\"what\":5}\n"  // wrongly typed: kept as JSON
      "{\"event\":\"forbidden_syscall\",\"name\":[1]}\n"
      "{\"event\":\"device_peaks\",\"gbps\":\"fast\",\"gflops\":1e308}\n"
      "{\"event\":7}\n{\"event\":\"result\"\n" +  // truncated: ignored
      deep(1000000) +
      "\n" + std::string(1 << 22, 'x') + "\n" +  // deep, oversized
      "{\"event\":\"result\"}\n");
  EXPECT_EQ(r.load_error, "5");
  EXPECT_EQ(r.forbidden_syscall, "[1]");
  EXPECT_EQ(r.device_gbps, 0);
  EXPECT_EQ(r.device_gflops, 1e308);
  EXPECT_EQ(r.forged_results, 1);
}

TEST(RunnerProtocolInput, ControlLinesThatAreNotTheReplyAreNullopt) {
  EXPECT_TRUE(parse_runner_reply("{\"ready\":true}", "ready"));
  for (const std::string& bad : {std::string("{\"ready\":tru"), std::string("[\"ready\"]"),
                                 std::string("\"ready\""), std::string("{\"ok\":true}"),
                                 "{\"ready\":" + deep(100000) + "}", std::string(1 << 20, '{')})
    EXPECT_FALSE(parse_runner_reply(bad, "ready")) << bad.substr(0, 40);
}

TEST(RunnerProtocolInput, DoneRepliesWithWrongFieldsAreErrorsNamingTheField) {
  RunnerDone d = parse_runner_done(
      json::parse(R"({"done":true,"ms":[0.5,0.25],"rc":0,"exception":"","failed_call":-1})"));
  EXPECT_EQ(d.ms.size(), 2u);
  EXPECT_EQ(d.failed_call, -1);
  for (const char* bad : {
           R"({"done":true,"rc":1e300})",  // UB as an int cast: refused
           R"({"done":true,"rc":2.5})",
           R"({"done":true,"failed_call":4294967296})",
           R"({"done":true,"ms":"0.5"})",
           R"({"done":true,"ms":[0.5,"x"]})",
           R"({"done":true,"exception":{"what":"x"}})",
       }) {
    try {
      parse_runner_done(json::parse(bad));
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace evk
