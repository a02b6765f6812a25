// core/verdict.h: categories and gates are enums inside and names at the edges; a verdict
// survives its JSON form, and a name this build does not know reads as infra.
#include "core/verdict.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace evk {
namespace {

const Category kAll[] = {Category::Ok,       Category::NoCode,       Category::HackStatic,
                         Category::Compile,  Category::RuntimeCrash, Category::Timeout,
                         Category::Mismatch, Category::HackDynamic,  Category::TooFast,
                         Category::Infra,    Category::NoDevice};

TEST(Verdict, EveryCategoryHasItsOwnNameAndReadsBack) {
  std::set<std::string> names;
  for (Category c : kAll) {
    names.insert(category_name(c));
    EXPECT_EQ(category_from(category_name(c)), c) << category_name(c);
  }
  EXPECT_EQ(names.size(), std::size(kAll));
  EXPECT_EQ(category_from("mismatch"), Category::Mismatch);  // the names the database holds
  EXPECT_EQ(category_from("no_device"), Category::NoDevice);
  EXPECT_EQ(category_from("Mismatch"), std::nullopt);
  EXPECT_EQ(category_from(""), std::nullopt);
}

TEST(Verdict, OnlyTheMachinerysOwnFailuresAreInfra) {
  for (Category c : kAll)
    EXPECT_EQ(is_infra(c), c == Category::Infra || c == Category::NoDevice) << category_name(c);
}

TEST(Verdict, JsonRoundTripKeepsCategoryAndGates) {
  Verdict v;
  v.feasible = false;
  v.gate = Gate::DynamicHack;
  v.category = Category::HackDynamic;
  v.feedback = "the output was written before the inputs were read";
  v.gates = {{Gate::StaticHack, true, ""},
             {Gate::Compile, true, ""},
             {Gate::Correctness, true, "3 seeds"},
             {Gate::DynamicHack, false, "caught"}};
  nlohmann::json j = to_json(v);
  EXPECT_EQ(j["category"], "hack_dynamic");
  EXPECT_EQ(j["gates"][3]["gate"], "dynamic_hack");
  Verdict back = verdict_from_json(j);
  EXPECT_EQ(back.category, Category::HackDynamic);
  EXPECT_EQ(back.gate, Gate::DynamicHack);
  ASSERT_EQ(back.gates.size(), 4u);
  EXPECT_EQ(back.gates[2].gate, Gate::Correctness);
  EXPECT_EQ(back.gates[2].detail, "3 seeds");
  EXPECT_FALSE(back.gates[3].passed);
}

TEST(Verdict, AnUnknownCategoryNameReadsAsInfraNeverAsFeasibleOrAFailureOfTheKernel) {
  Verdict ok;
  ok.feasible = true;
  nlohmann::json j = to_json(ok);
  j["category"] = "segfault_maybe";
  Verdict v = verdict_from_json(j);
  EXPECT_EQ(v.category, Category::Infra);
  EXPECT_FALSE(v.feasible);
  EXPECT_TRUE(is_infra(v.category));
}

}  // namespace
}  // namespace evk
