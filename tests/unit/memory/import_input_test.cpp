// Bad input stays a clear error for memory import (a file users share): a line that is
// truncated, wrongly typed, oversized or deeply nested is a UsageError naming the file and the
// line, and the bank is left as it was (the import is one transaction).
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "helpers.h"

namespace evk {
namespace {
using nlohmann::json;

class ImportInput : public ::testing::Test {
 protected:
  ImportInput() : ws_(dir_.path() / "ws"), mem_(ws_, testing::test_params()) {}
  // The UsageError importing `text` gives, "" when it imports.
  std::string import_error(const std::string& text) {
    auto file = dir_.path() / "in.jsonl";
    std::ofstream(file) << text;
    try {
      mem_.import_jsonl(file, {});
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      return e.what();
    }
    return "";
  }
  static json line(json item_fields) {
    json item = {{"id", 1}, {"kind", "experience"}, {"title", "t"}, {"body", "b"}};
    if (item_fields.is_object()) item.update(item_fields);
    return {{"item", item}, {"q", json::object()}};
  }
  testing::TempDir dir_;
  Workspace ws_;
  Memory mem_;
};

TEST_F(ImportInput, BadLinesNameFileAndLineAndChangeNothing) {
  const std::string head = "{\"evokernel_memory\":1}\n";
  const std::string at2 = (dir_.path() / "in.jsonl").string() + " line 2: ";
  json bad_q = line({});
  bad_q["q"] = {{"draft", {{"q", "high"}}}};
  json unknown_stage = line({});
  unknown_stage["q"] = {{"sideways", {{"q", 0.5}}}};
  for (const std::string& bad : {
           head + line({}).dump().substr(0, 30) + "\n",   // truncated
           head + line({{"id", 1e300}}).dump() + "\n",    // float out of range
           head + line({{"parent", "1"}}).dump() + "\n",  // wrongly typed
           head + line({{"kind", "rumour"}}).dump() + "\n",
           head + line({{"tags", "a,b"}}).dump() + "\n",
           head + bad_q.dump() + "\n",
           head + unknown_stage.dump() + "\n",
           head + "{\"item\":" + std::string(100000, '[') + "\n",  // deeply nested
           head + "[1, 2]\n",
           head + "{\"item\": 7}\n",
       }) {
    std::string why = import_error(bad);
    EXPECT_EQ(why.rfind(at2, 0), 0u) << bad.substr(head.size(), 80) << ": " << why;
  }
  EXPECT_EQ(mem_.size(), 0u);
  // Oversized but well formed: imported.
  std::string big = head;
  for (int i = 1; i <= 2000; ++i)
    big += line({{"id", i},
                 {"title", "t" + std::to_string(i)},
                 {"body", std::string(2000, 'b')},
                 {"origin_task", "task" + std::to_string(i)}})
               .dump() +
           "\n";
  EXPECT_EQ(import_error(big), "");
  EXPECT_GT(mem_.size(), 0u);
}

}  // namespace
}  // namespace evk
