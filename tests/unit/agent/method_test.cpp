// agent/method.h: the four methods a run compares, each with what it does and does not use.
#include "agent/method.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace evk {
namespace {

TEST(Method, EachMethodUsesWhatItsNameSays) {
  Method e = method_by_name("evokernel");
  EXPECT_EQ(e.policy, Policy::Value);
  EXPECT_TRUE(e.write_memory && e.learn_q && e.show_attempts && e.refine_stage && e.start_by_q &&
              e.api_templates);

  Method rag = method_by_name("rag");  // similarity retrieval over the same memory, no values
  EXPECT_EQ(rag.policy, Policy::Similarity);
  EXPECT_TRUE(rag.write_memory && rag.show_attempts && rag.refine_stage && rag.api_templates);
  EXPECT_FALSE(rag.learn_q || rag.start_by_q);

  Method refine = method_by_name("refine");  // feedback and refining, no memory
  EXPECT_EQ(refine.policy, Policy::None);
  EXPECT_TRUE(refine.show_attempts && refine.refine_stage && refine.api_templates);
  EXPECT_FALSE(refine.write_memory || refine.learn_q || refine.start_by_q);

  Method passk = method_by_name("passk");  // independent samples from the guide alone
  EXPECT_EQ(passk.policy, Policy::None);
  EXPECT_FALSE(passk.write_memory || passk.learn_q || passk.show_attempts || passk.refine_stage ||
               passk.start_by_q || passk.api_templates);
}

TEST(Method, AnUnknownNameIsAUsageErrorThatListsTheMethods) {
  try {
    method_by_name("evokernal");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("evokernel, passk, refine or rag"), std::string::npos);
  }
}

}  // namespace
}  // namespace evk
