// Bad input to the task side's parsers stays a clear error: a suite manifest (the user's), a
// task description and a reference's meta.json (the oracle's, which runs the task's code).
// Truncated, oversized, wrongly typed and deeply nested input is reported as one line naming
// the file and what is wrong; nothing aborts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/paths.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"

namespace evk {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

std::string deep(size_t n) {
  return std::string(n, '[') + std::string(n, ']');
}

class TaskInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("evk-task-input-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The UsageError's message for a manifest holding `text`; "" when it was accepted.
  std::string manifest_error(const std::string& text) {
    write_file_atomic(dir_ / kSuiteManifest, text);
    try {
      suite_manifest_levels(dir_);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
  std::string meta_error(const std::string& text) {
    write_file_atomic(dir_ / "meta.json", text);
    try {
      load_reference(dir_);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(TaskInput, ManifestReadsLevels) {
  EXPECT_TRUE(manifest_error("{\"levels\": {\"relu\": 1, \"mlp\": 3}}").empty());
  auto levels = suite_manifest_levels(dir_);
  EXPECT_EQ(levels.at("relu"), 1);
  EXPECT_EQ(levels.at("mlp"), 3);
  fs::remove(dir_ / kSuiteManifest);
  EXPECT_TRUE(suite_manifest_levels(dir_).empty());
}

TEST_F(TaskInput, BadManifestsAreOneLineNamingTheFile) {
  const std::string file = (dir_ / kSuiteManifest).string();
  for (const std::string& bad : {
           std::string("{\"levels\": {\"relu\": 1, \"mlp\""),     // truncated
           std::string(""),                                       // empty
           std::string("{\"levels\": {\"relu\": 1e300}}"),        // a float far out of range
           std::string("{\"levels\": {\"relu\": 2.5}}"),          // not an integer
           std::string("{\"levels\": {\"relu\": 99999999999}}"),  // beyond int
           std::string("{\"levels\": {\"relu\": \"one\"}}"),      // wrongly typed
           std::string("{\"levels\": [1, 2]}"), std::string("[\"levels\"]"),
           "{\"levels\": {\"relu\": " + deep(200000) + "}}",  // deeply nested
       }) {
    std::string why = manifest_error(bad);
    EXPECT_EQ(why.rfind(file + " is malformed (", 0), 0u) << bad.substr(0, 60) << ": " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  EXPECT_NE(manifest_error("{\"levels\": {\"relu\": 1e300}}").find("integer"), std::string::npos);
  EXPECT_NE(manifest_error(deep(100000)).find("nesting deeper than"), std::string::npos);
}

TEST_F(TaskInput, AnOversizedManifestIsRead) {
  json levels = json::object();
  for (int i = 0; i < 100000; ++i) levels["task_" + std::to_string(i)] = i % 3 + 1;
  EXPECT_TRUE(manifest_error(json{{"levels", levels}}.dump()).empty());
  EXPECT_EQ(suite_manifest_levels(dir_).size(), 100000u);
}

TEST_F(TaskInput, DescriptionsOfTheWrongShapeAreJsonErrors) {
  const json good = json::parse(
      R"({"id":"relu","level":1,"doc":"ReLU","constants":{"BATCH":1024},"fitted":{"BATCH":[1024,8]},
          "input_elements":65536,"fit":{"elements":[8388608,65536],"flops":[8388608,65536]},"ok":true})");
  TaskInfo t = task_info_from_json(good, {});
  EXPECT_TRUE(t.ok);
  EXPECT_EQ(t.fitted.at("BATCH").second, 8);
  EXPECT_EQ(t.elements, 65536);
  for (const char* bad : {
           R"({"fitted":{"BATCH":[1024]}})",             // truncated pair
           R"({"fitted":{"BATCH":"1024->8"}})",          // wrongly typed
           R"({"constants":{"BATCH":1e300}})",           // float out of range
           R"({"fit":{"elements":[1],"flops":[1,2]}})",  // missing element
           R"({"level":"one"})",
           R"(["relu"])",
           "7",
       })
    EXPECT_THROW(task_info_from_json(json::parse(bad), {}), json::exception) << bad;
}

TEST_F(TaskInput, BadMetaJsonIsAnErrorNamingTheFile) {
  const std::string good =
      R"({"abi":[{"name":"in.0","role":"input","dtype":"F32","shape":[8,256]}],
          "outputs":[{"name":"out.0","role":"output","dtype":"F32","shape":[8,256]}],
          "eager":{"median_ms":0.01},"flops":4096,"bytes":16384})";
  ASSERT_TRUE(meta_error(good).empty());
  const std::string file = (dir_ / "meta.json").string();
  for (
      const std::string& bad : {
          good.substr(0, good.size() / 2),  // truncated
          std::string(
              R"({"abi":[{"name":"in.0","role":"input","dtype":"F32","shape":[1099511627776,1099511627776]}],"outputs":[],"eager":{"median_ms":1}})"),
          std::string(
              R"({"abi":[{"name":"in.0","role":"input","dtype":"F32","shape":[-8]}],"outputs":[],"eager":{"median_ms":1}})"),
          std::string(R"({"abi":[],"outputs":[],"eager":{"median_ms":"fast"}})"),
          std::string(R"({"abi":[],"outputs":[],"eager":{"median_ms":1},"flops":1e300})"),
          std::string(R"({"abi":{"in.0":7},"outputs":[],"eager":{"median_ms":1}})"),
          "{\"abi\":" + deep(100000) + "}",
      }) {
    std::string why = meta_error(bad);
    EXPECT_EQ(why.rfind("reference metadata " + file + " is malformed (", 0), 0u)
        << bad.substr(0, 60) << ": " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace evk
