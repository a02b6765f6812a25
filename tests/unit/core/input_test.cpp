// Bad input stays a clear error, for the core's readers of outside input: parse_json's depth
// bound and json_int's typed integers (what every JSON reader of outside input uses), and the
// TOML config file. Truncated, oversized, wrongly typed and deeply nested input is reported as
// one line naming the file and what is wrong; nothing aborts or overflows the stack.
#include <gtest/gtest.h>

#include <fstream>

#include "core/config.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/temp_dir.h"

namespace evk {
namespace {
using nlohmann::json;

std::string deep(size_t n, char open = '[', char close = ']') {
  return std::string(n, open) + std::string(n, close);
}

TEST(ParseJson, RefusesNestingDeeperThanTheBoundAndReadsTheRest) {
  EXPECT_EQ(parse_json(deep(kJsonMaxDepth)).dump().size(), 2u * kJsonMaxDepth);
  EXPECT_THROW(parse_json(deep(kJsonMaxDepth + 1)), json::out_of_range);
  try {
    parse_json(deep(1000000));  // a million levels: refused at the bound, no stack overflow
    FAIL();
  } catch (const json::exception& e) {
    EXPECT_NE(std::string(e.what()).find("nesting deeper than 64 levels"), std::string::npos);
  }
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  EXPECT_THROW(parse_json(objects + "1" + std::string(100000, '}')), json::out_of_range);
  EXPECT_THROW(parse_json("{\"a\": [1, 2"), json::parse_error);  // truncated
  // Oversized but flat: read whole.
  std::string big = "[\"" + std::string(4 << 20, 'x') + "\"]";
  EXPECT_EQ(parse_json(big).size(), 1u);
}

TEST(JsonInt, AcceptsIntegersInRangeOnly) {
  EXPECT_EQ(json_int<int>(json(42)), 42);
  EXPECT_EQ(json_int<int64_t>(json(-5)), -5);
  EXPECT_EQ(json_int<uint64_t>(json(uint64_t{1} << 62)), uint64_t{1} << 62);
  EXPECT_THROW(json_int<uint64_t>(json(uint64_t{1} << 63)), json::out_of_range);  // > INT64_MAX
  EXPECT_THROW(json_int<int>(json(1e300)), json::type_error);  // no UB float->int cast
  EXPECT_THROW(json_int<int>(json(2.5)), json::type_error);
  EXPECT_THROW(json_int<int>(json("3")), json::type_error);
  EXPECT_THROW(json_int<int>(json(true)), json::type_error);
  EXPECT_THROW(json_int<int>(json(int64_t{1} << 40)), json::out_of_range);
  EXPECT_THROW(json_int<int64_t>(json(uint64_t{1} << 63)), json::out_of_range);
  EXPECT_THROW(json_int<uint32_t>(json(-1)), json::out_of_range);
  const json obj = {{"n", 7}, {"z", nullptr}};
  EXPECT_EQ(json_int(obj, "n", 0), 7);
  EXPECT_EQ(json_int(obj, "missing", 3), 3);
  EXPECT_EQ(json_int(obj, "z", 3), 3);
}

// The UsageError a config file holding `text` gives; "" when it loads.
std::string config_error(const std::string& text) {
  TempDir ws("evk-config-input-");
  auto file = ws.path() / "evokernel.toml";
  std::ofstream(file) << text;
  try {
    Config::load(ws.path(), file.string());
  } catch (const UsageError& e) {
    std::string why = e.what();
    EXPECT_NE(why.find(file.string()), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    return why;
  }
  return "";
}

TEST(ConfigInput, BadFilesAreOneLineNamingTheFile) {
  EXPECT_EQ(config_error("[memory]\nepsilon = 0.25\n"), "");
  EXPECT_NE(config_error("[memory]\nepsilon = 0.").find("fix the TOML syntax"), std::string::npos);
  EXPECT_NE(config_error("[memory\n").find("fix the TOML syntax"), std::string::npos);
  EXPECT_NE(config_error("[memory]\nepsilon = [0.1, 0.2]\n").find("must be a string"),
            std::string::npos);
  EXPECT_NE(config_error("[memory]\nepsilon = 1979-05-27\n").find("must be a string"),
            std::string::npos);
  EXPECT_NE(config_error("[a.b.c.d.e.f]\nx = 1\n").find("nested too deep"), std::string::npos);
  EXPECT_NE(config_error("x = " + deep(100000) + "\n").find("fix the TOML syntax"),
            std::string::npos);
  EXPECT_NE(config_error("x = " + deep(100000, '{', '}') + "\n").find("fix the TOML syntax"),
            std::string::npos);
  std::string dotted = "[a";
  for (int i = 0; i < 100000; ++i) dotted += ".a";
  // toml++ recurses once per part of a dotted key: refused before it parses.
  EXPECT_NE(config_error(dotted + "]\nx = 1\n").find(":1: a key path of more than 16 parts"),
            std::string::npos);
  EXPECT_NE(config_error("# a.b\n[llm]\nx = \"a.b\"\n" + dotted.substr(1) + " = 1\n")
                .find(":4: a key path of more than 16 parts"),
            std::string::npos);
  EXPECT_NE(config_error("x = {" + dotted.substr(1) + " = 1}\n").find("a key path of more"),
            std::string::npos);
  // Dots in strings, comments and numbers are no key path.
  EXPECT_EQ(
      config_error("# " + dotted + "\n[llm]\nbase_url = \"" + dotted + "\"\ntemperature = 0.5\n"),
      "");
  EXPECT_NE(config_error("[llm]\nmodel = \"" + std::string(1 << 20, 'x')).find("TOML"),
            std::string::npos);  // an unterminated, oversized string
}

// toml++ 3.3 reaches undefined behaviour on a non-ASCII character outside a string or comment
// (fuzz_config found `[llé]`; tests/fuzz/corpus/config/non_ascii_key): refused before it parses,
// while text in strings and comments may be any UTF-8.
TEST(ConfigInput, NonAsciiOutsideStringsIsOneLineAndInsideIsText) {
  for (const char* bad :
       {"[ll\xc3\xa9]\n", "[llm]\nmod\xc3\xa8l = 1\n", "[llm]\nmodel = 1 \xc3\xa9\n"})
    EXPECT_NE(config_error(bad).find(": a non-ASCII character outside a string or comment"),
              std::string::npos)
        << bad;
  EXPECT_EQ(config_error("# r\xc3\xa9glage\n[llm]\nmodel = \"mod\xc3\xa8le\" # \xc3\xa9\n"
                         "base_url = '''h\xc3\xa9\n'''\n"),
            "");
}

}  // namespace
}  // namespace evk
