#include <gtest/gtest.h>

#include "llm/provider.h"

using evk::extract_code;

TEST(ExtractCode, TaggedBlockWinsOverEarlierUntaggedOne) {
  std::string r = "Plan:\n```\nstep 1\n```\nCode:\n```cpp\nint f() { return 1; }\n```\n";
  EXPECT_EQ(extract_code(r).value(), "int f() { return 1; }\n");
}

TEST(ExtractCode, LastOfSeveralTaggedBlocks) {
  std::string r = "```cuda\n__global__ void k() {}\n```\nthen\n```c\nint g;\n```\n";
  EXPECT_EQ(extract_code(r).value(), "int g;\n");
}

// Shapes seen from capable models asked for one block: the block defining the entry wins
// wherever it is, and of two such the later one.
TEST(ExtractCode, TheBlockDefiningTheEntryWins) {
  const std::string file =
      "#include <cstdint>\nextern \"C\" int evk_forward(const float* x, float* y, int64_t n) {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0;\n  return 0;\n}\n";
  std::string snippet_first =
      "The key change:\n```cpp\ny[i] = x[i] > 0 ? x[i] : 0;\n```\n"
      "Full file:\n```cpp\n" +
      file + "```\n";
  EXPECT_EQ(extract_code(snippet_first).value(), file);
  std::string usage_after =
      "```cpp\n" + file +
      "```\nCall it as:\n```cpp\nint main() {\n"
      "  if (evk_forward(x, y, n)) { return 1; }\n  evk_forward (x, y, n);\n}\n```\n";
  EXPECT_EQ(extract_code(usage_after).value(), file);
  std::string declared_after =
      "```cpp\n" + file +
      "```\n```cpp\nextern \"C\" int evk_forward(const float*, float*, long);\n```\n";
  EXPECT_EQ(extract_code(declared_after).value(), file);
  std::string untagged_file = "```cpp\n// helper idea\nint h;\n```\n```\n" + file + "```\n";
  EXPECT_EQ(extract_code(untagged_file).value(), file);
  std::string corrected =
      "```cpp\n" + file +
      "```\nOops, a bug. Corrected:\n```cpp\nint evk_forward(int a) noexcept { return a; }\n```\n";
  EXPECT_EQ(extract_code(corrected).value(), "int evk_forward(int a) noexcept { return a; }\n");
  std::string prefixed =
      "```cpp\n" + file + "```\n```cpp\nint my_evk_forward(int a) { return a; }\n```\n";
  EXPECT_EQ(extract_code(prefixed).value(), file);
}

TEST(ExtractCode, EveryKernelTagCounts) {
  for (std::string tag : {"c", "cpp", "C++", "cuda", "cu", "opencl", "cl", "CPP", "cpp title=k.cpp"}) {
    std::string r = "```python\nx = 1\n```\n```" + tag + "\nbody\n```\n";
    EXPECT_EQ(extract_code(r).value(), "body\n") << tag;
  }
}

TEST(ExtractCode, FallsBackToABlockOfAnyTag) {
  std::string r = "```python\nprint(1)\n```\n```text\nlast\n```\n";
  EXPECT_EQ(extract_code(r).value(), "last\n");
}

TEST(ExtractCode, ABareFileDefiningTheEntryIsTheCode) {
  std::string bare = "#include <cstdint>\nextern \"C\" int evk_forward(int a) {\n  return a;\n}\n";
  EXPECT_EQ(extract_code(bare).value(), bare);
  EXPECT_FALSE(extract_code("Call evk_forward(x) once per batch.").has_value());
}

TEST(ExtractCode, NoBlockIsNullopt) {
  EXPECT_FALSE(extract_code("I cannot write that kernel.").has_value());
  EXPECT_FALSE(extract_code("").has_value());
  EXPECT_FALSE(extract_code("inline ``code`` only").has_value());
}

TEST(ExtractCode, UnterminatedFenceRunsToTheEnd) {
  std::string r = "Sure:\n```cpp\nint a;\nint b;";
  EXPECT_EQ(extract_code(r).value(), "int a;\nint b;\n");
}

TEST(ExtractCode, LongerFenceKeepsInnerBackticks) {
  std::string r = "````cpp\n// ```not a close```\n```\nint x;\n````\n";
  EXPECT_EQ(extract_code(r).value(), "// ```not a close```\n```\nint x;\n");
}

TEST(ExtractCode, TildesCrLfAndIndentedFences) {
  EXPECT_EQ(extract_code("~~~cpp\r\nint y;\r\n~~~\r\n").value(), "int y;\n");
  EXPECT_EQ(extract_code("  ```cpp\n  int z;\n  ```\n").value(), "  int z;\n");
}

TEST(ExtractCode, WhitespaceOnlyBlocksAreSkipped) {
  EXPECT_EQ(extract_code("```cpp\n\n```\n```\nreal\n```").value(), "real\n");
  EXPECT_FALSE(extract_code("```cpp\n   \n```").has_value());
}
