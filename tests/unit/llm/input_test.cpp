// Bad input stays a clear error, for what comes from a model or a user's cassette: a model's
// reply of any shape gives a candidate or none (never an exception or a read out of bounds);
// a cassette line that is truncated, wrongly typed, oversized or deeply nested is an Error
// naming file:line, and a replay miss against odd recorded requests is a ProviderError.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/temp_dir.h"
#include "llm/cassette.h"

namespace evk {
namespace {
using nlohmann::json;

std::string deep(size_t n) {
  return std::string(n, '[') + std::string(n, ']');
}

TEST(ExtractInput, RepliesOfAnyShapeGiveACandidateOrNone) {
  EXPECT_EQ(extract_code(""), std::nullopt);
  EXPECT_EQ(extract_code("```"), std::nullopt);
  EXPECT_EQ(extract_code("```cpp\n"), std::nullopt);       // truncated, empty
  EXPECT_EQ(*extract_code("```cpp\nint x;"), "int x;\n");  // truncated block
  EXPECT_EQ(*extract_code("~~~~\nint evk_forward(\n"), "int evk_forward(\n");
  std::string fences(100000, '`');
  EXPECT_EQ(extract_code(fences), std::nullopt);  // one long fence, nothing in it
  std::string parens = "int evk_forward" + std::string(100000, '(');
  EXPECT_EQ(extract_code(parens), std::nullopt);  // unbalanced: no definition
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "```c\nint a" + std::to_string(i) + ";\n```\n";
  EXPECT_EQ(*extract_code(many), "int a19999;\n");  // oversized: the last block
  std::string nul("```cpp\nint evk_forward() {\0}\n```", 32);
  EXPECT_EQ(extract_code(nul)->size(), 22u);  // a NUL inside stays inside
}

class CassetteInput : public ::testing::Test {
 protected:
  CassetteInput() : dir_("evk-cassette-input-") {}
  // The Error a cassette of `lines` gives, "" when it loads.
  std::string load_error(const std::string& text) {
    std::ofstream(file()) << text;
    try {
      ReplayProvider p(file());
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      return e.what();
    }
    return "";
  }
  std::filesystem::path file() const { return dir_.path() / "c.jsonl"; }
  static json entry() {
    return json::parse(
        R"({"v":1,"key":"0123456789abcdef","model":"sim","task":"relu",
            "request":{"messages":[{"role":"user","content":"relu"}],"temperature":0.7,
                       "max_tokens":4096,"seed":0,"extra":{}},
            "reply":{"text":"ok","usage":{"prompt_tokens":1,"completion_tokens":1}}})");
  }
  TempDir dir_;
};

TEST_F(CassetteInput, BadLinesAreOneLineNamingFileAndLine) {
  const std::string good = entry().dump();
  ASSERT_EQ(load_error(good + "\n"), "");
  const std::string at2 = file().string() + ":2: not a cassette entry";
  auto with = [&](const char* ptr, json v) {
    json e = entry();
    e[json::json_pointer(ptr)] = std::move(v);
    return good + "\n" + e.dump() + "\n";
  };
  for (const std::string& bad : {
           good + "\n" + good.substr(0, 40) + "\n",                     // truncated, then newline
           with("/reply/usage/prompt_tokens", 1e300),                   // float out of range
           with("/reply/usage/prompt_tokens", "12"),                    // wrongly typed
           with("/request/messages", "relu"),                           // not a list
           with("/request/messages/0", json::array({"user", "relu"})),  // not an object
           with("/request/messages/0/content", 5),
           with("/request", 7),
           good + "\n" + std::string("{\"key\":") + deep(100000) + "}\n",  // deeply nested
           good + "\n[1,2]\n",
       }) {
    std::string why = load_error(bad);
    EXPECT_EQ(why.rfind(at2, 0), 0u) << bad.substr(good.size(), 80) << ": " << why;
  }
  // A torn last line (a crash mid-append) is not an error.
  EXPECT_EQ(load_error(good + "\n" + good.substr(0, 40)), "");
}

TEST_F(CassetteInput, AMissAgainstOddRecordedRequestsIsAProviderError) {
  json e = entry();
  e["request"]["temperature"] = json::array({1, 2});
  e["request"]["messages"].push_back(
      {{"role", "assistant"}, {"content", std::string(1 << 20, 'x')}});
  std::ofstream(file()) << e.dump() << "\n";
  ReplayProvider replay(file());
  try {
    replay.complete({{"user", "relu"}}, CompletionOptions{});
    FAIL() << "a miss";
  } catch (const ProviderError& err) {
    EXPECT_EQ(err.kind, "replay_miss");
    EXPECT_NE(std::string(err.what()).find("closest recorded entry (line 1"), std::string::npos)
        << err.what();
  }
}

}  // namespace
}  // namespace evk
