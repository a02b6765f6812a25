// The request that asks the coder model for an experience (memory.summarize = model): its text
// against a golden file (what a model is sent), and the parsing of its fixed JSON answer.
#include "agent/experience_request.h"

#include <gtest/gtest.h>

#include "core/paths.h"

namespace evk {
namespace {

ExperienceRequest request() {
  ExperienceRequest r;
  r.backend = "ascendc";
  r.task = "sigmoid";
  r.attempt = 5;
  r.start_attempt = 3;
  r.start_ms = 0.02;
  r.new_ms = 0.0125;
  r.before.bound = Bound::Serialised;
  r.before.basis = "cost model";
  r.before.facts = {"2 of 2 queue(s) have one buffer: copy and compute on them cannot overlap"};
  r.after.bound = Bound::Mte2;
  r.after.basis = "cost model";
  r.after.facts = {"busy share of the slowest core's 2000 cycles: MTE2 (copy in) 81%"};
  r.diff = "- constexpr int32_t BUFFER_NUM = 1;\n+ constexpr int32_t BUFFER_NUM = 2;\n";
  return r;
}

TEST(ExperienceRequest, TheTextAModelIsSentMatchesTheGoldenFile) {
  const std::string golden =
      read_file(data_root() / "tests" / "data" / "prompt_golden" / "summarise.txt");
  EXPECT_EQ(experience_request_text(request()), golden);
}

TEST(ExperienceRequest, TheAnswerIsTheFixedSchemaOrNothing) {
  auto e = parse_model_experience(
      "Here it is:\n```json\n{\"what_changed\": \"two buffers per queue\", \"why_it_paid\": "
      "\"copy-in of the next tile overlaps compute\", \"bound\": \"serialised\"}\n```");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->bound, Bound::Serialised);
  EXPECT_EQ(e->what_changed, "two buffers per queue");
  std::string text = model_experience_text(*e, "fake", 5);
  EXPECT_NE(text.find("written by fake after attempt 5"), std::string::npos) << text;
  EXPECT_NE(text.find("Bound it fixed: serialised"), std::string::npos) << text;
  EXPECT_FALSE(parse_model_experience("no json here"));
  EXPECT_FALSE(parse_model_experience(
      "{\"what_changed\": \"x\", \"why_it_paid\": \"y\", \"bound\": \"speed\"}"));
  EXPECT_FALSE(parse_model_experience("{\"what_changed\": \"x\", \"bound\": \"mte2\"}"));
  EXPECT_FALSE(parse_model_experience("{\"what_changed\": [1], \"why_it_paid\": \"y\"}"));
}

}  // namespace
}  // namespace evk
