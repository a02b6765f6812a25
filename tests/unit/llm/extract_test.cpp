#include <gtest/gtest.h>

#include "llm/provider.h"

using evk::extract_code;

TEST(ExtractCode, TaggedBlockWinsOverEarlierUntaggedOne) {
  std::string r = "Plan:\n```\nstep 1\n```\nCode:\n```cpp\nint f() { return 1; }\n```\n";
  EXPECT_EQ(extract_code(r).value(), "int f() { return 1; }\n");
}

TEST(ExtractCode, FirstOfSeveralTaggedBlocks) {
  std::string r = "```cuda\n__global__ void k() {}\n```\nthen\n```c\nint g;\n```\n";
  EXPECT_EQ(extract_code(r).value(), "__global__ void k() {}\n");
}

TEST(ExtractCode, EveryKernelTagCounts) {
  for (std::string tag : {"c", "cpp", "C++", "cuda", "cu", "opencl", "cl", "CPP", "cpp title=k.cpp"}) {
    std::string r = "```python\nx = 1\n```\n```" + tag + "\nbody\n```\n";
    EXPECT_EQ(extract_code(r).value(), "body\n") << tag;
  }
}

TEST(ExtractCode, FallsBackToFirstBlockOfAnyTag) {
  std::string r = "```python\nprint(1)\n```\n```text\nnope\n```\n";
  EXPECT_EQ(extract_code(r).value(), "print(1)\n");
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
