// What a model is shown of each seed item: the bundles' items rendered as a prompt renders a
// retrieved item. A best practice is about its "After:" code, so that code must be shown
// whole, whatever the item's length; an api item's template kernel likewise.
#include <gtest/gtest.h>

#include <algorithm>

#include "agent/prompt.h"
#include "core/paths.h"
#include "knowledge_bundle.h"

namespace evk::knowledge {
namespace {

PromptItem item(const std::string& kind, const std::string& body) {
  PromptItem it;
  it.id = 7;
  it.kind = kind;
  it.title = "t";
  it.body = body;
  return it;
}

PromptItem as_retrieved(const Item& it) {
  PromptItem p = item(it.kind, it.body);
  p.title = it.title;
  p.tags = it.tags;
  return p;
}

class BundleItems : public ::testing::TestWithParam<std::string> {};

TEST_P(BundleItems, EveryItemShowsTheCodeItIsAbout) {
  int checked = 0;
  for (const Item& it : load_bundle(data_root() / "knowledge" / GetParam())) {
    if (it.file.filename() == "guide.md" || it.kernels().empty()) continue;
    SCOPED_TRACE(it.file.filename().string());
    const std::string shown = render_memory({as_retrieved(it)});
    // The last complete kernel: a best practice's After, an api item's template.
    const CodeBlock& last = *it.kernels().back();
    EXPECT_NE(shown.find(last.code), std::string::npos) << "its last kernel is cut:\n" << shown;
    EXPECT_LE(std::count(shown.begin(), shown.end(), '\n'), 160) << "an item stays bounded";
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, BundleItems,
                         ::testing::Values("cpu", "cuda", "opencl", "ascendc"));

std::string lines_of_code(const std::string& tag, int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += "int " + tag + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  return s;
}

TEST(PromptItems, ALongBestPracticeLosesItsBeforeCodeNotItsAfter) {
  const std::string before = lines_of_code("slow", 100), after = lines_of_code("fast", 100);
  PromptItem it = item("best_practice", "**Change**: this.\n\nBefore:\n\n```cpp\n" + before +
                                            "```\n\nAfter:\n\n```cpp\n" + after + "```\n");
  const std::string shown = render_memory({it});
  EXPECT_NE(shown.find(after), std::string::npos);
  EXPECT_EQ(shown.find("slow0"), std::string::npos);
  EXPECT_NE(shown.find("left out"), std::string::npos) << "says the Before code was left out";
  EXPECT_EQ(std::count(shown.begin(), shown.end(), '`') % 6, 0) << "fences balanced";
}

TEST(PromptItems, AShortBestPracticeKeepsBoth) {
  PromptItem it =
      item("best_practice", "Before:\n```cpp\nint slow;\n```\nAfter:\n```cpp\nint fast;\n```\n");
  const std::string shown = render_memory({it});
  EXPECT_NE(shown.find("int slow;"), std::string::npos);
  EXPECT_NE(shown.find("int fast;"), std::string::npos);
}

TEST(PromptItems, ALongBodyWithoutABeforeIsCutWithItsFenceClosed) {
  PromptItem it = item("api", "text\n```cpp\n" + lines_of_code("x", 400) + "```\n");
  const std::string shown = render_memory({it});
  EXPECT_NE(shown.find("(cut)"), std::string::npos);
  EXPECT_LE(std::count(shown.begin(), shown.end(), '\n'), 160);
  EXPECT_EQ(std::count(shown.begin(), shown.end(), '`') % 6, 0) << "fences balanced";
}

}  // namespace
}  // namespace evk::knowledge
