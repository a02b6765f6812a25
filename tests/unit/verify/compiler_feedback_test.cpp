// Compile feedback leads with the errors, each with its source line and caret, paths relative
// to the candidate; warnings only in the room left; every cut is said. The cases under
// tests/data/compile_feedback/ are compiled for real by the cpu backend (g++); their headers
// say what the feedback must show.
#include "backends/compiler_feedback.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "backends/backend.h"
#include "backends/compile_support.h"
#include "core/paths.h"
#include "core/temp_dir.h"
#include "verify/verifier.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

std::string header(const std::string& src, const std::string& key) {
  std::string tag = "// " + key + ": ";
  size_t p = src.find(tag);
  if (p == std::string::npos) return "";
  p += tag.size();
  return src.substr(p, src.find('\n', p) - p);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

class CompileFeedbackCase : public ::testing::TestWithParam<std::string> {};

TEST_P(CompileFeedbackCase, ErrorsLeadWithSourceAndCaret) {
  std::string src = read_file(data_root() / "tests/data/compile_feedback" / GetParam());
  auto backend = make_backend("cpu");
  TempDir dir("evk-feedback-");
  CompileResult r = backend->compile(src, dir.path(), 120);
  ASSERT_FALSE(r.ok);
  const std::string& fb = r.feedback;
  SCOPED_TRACE("feedback:\n" + fb);
  EXPECT_LE(fb.size(), TrimRule{}.cap);
  EXPECT_EQ(fb.find(dir.path().string()), std::string::npos) << "paths are relative";

  auto lines = lines_of(fb);
  ASSERT_GE(lines.size(), 4u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(lines[0], m, std::regex(R"(^(\d+) errors?, (\d+) warnings?)")))
      << lines[0];
  int errors = std::stoi(m[1]);
  std::string want = header(src, "expect-errors");
  if (want == "many")
    EXPECT_GE(errors, 3);
  else
    EXPECT_EQ(errors, std::stoi(want));

  // The first diagnostic shown is an error on the candidate's file, then its line and caret.
  size_t i = 1;
  while (i < lines.size() && lines[i].find(": In ") != std::string::npos) ++i;  // context
  ASSERT_LT(i + 2, lines.size());
  EXPECT_TRUE(std::regex_search(lines[i], std::regex(R"(^kernel\.cpp:\d+:\d+: error: )"))) << lines[i];
  EXPECT_NE(lines[i].find(header(src, "expect-first-error")), std::string::npos) << lines[i];
  EXPECT_TRUE(std::regex_search(lines[i + 1], std::regex(R"(^\s*\d+ \| )"))) << lines[i + 1];
  EXPECT_TRUE(std::regex_search(lines[i + 2], std::regex(R"(^\s*\|.*\^)"))) << lines[i + 2];
  // No warning comes before the last error shown.
  size_t last_error = fb.rfind(": error: "), first_warning = fb.find(": warning: ");
  if (first_warning != std::string::npos) {
    EXPECT_LT(last_error, first_warning);
  }

  std::string cut = header(src, "expect-cut");
  size_t at = fb.find("[feedback cut: ");
  if (cut == "none") {
    EXPECT_EQ(at, std::string::npos);
  } else {
    ASSERT_NE(at, std::string::npos);
    EXPECT_NE(fb.find(cut, at), std::string::npos) << "the cut line names what was cut";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CompileFeedbackCase,
                         ::testing::Values("vexing_gamma.cpp", "two_errors.cpp", "error_flood.cpp"),
                         [](const auto& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

// nvcc's format (captured from nvcc 13 here): errors with their source line and caret, the
// compiler's own count dropped.
TEST(CompilerFeedback, NvccErrorsKeepTheirSourceAndCaret) {
  std::string log =
      "/tmp/evk-verify-x/kernel.cu(3): warning #177-D: variable \"t\" was declared but never "
      "referenced\n  int t;\n      ^\n\n"
      "/tmp/evk-verify-x/kernel.cu(1): error: identifier \"undefined_fn\" is undefined\n"
      "  __attribute__((global)) void k(float* x) { x[0] = undefined_fn(1); }\n"
      "                                                    ^\n\n"
      "1 error detected in the compilation of \"/tmp/evk-verify-x/kernel.cu\".\n";
  std::string fb = format_compiler_feedback(log, "/tmp/evk-verify-x");
  EXPECT_EQ(fb.rfind("1 error, 1 warning; the errors first:\n", 0), 0u) << fb;
  size_t e = fb.find("kernel.cu(1): error: identifier \"undefined_fn\"");
  ASSERT_NE(e, std::string::npos) << fb;
  EXPECT_LT(e, fb.find("warning #177-D")) << fb;
  EXPECT_TRUE(std::regex_search(fb, std::regex(R"(x\[0\] = undefined_fn\(1\); \}\n +\^\n)"))) << fb;
  EXPECT_EQ(fb.find("detected in the compilation"), std::string::npos) << fb;
  EXPECT_EQ(fb.find("/tmp/"), std::string::npos) << fb;
}

// PoCL's build log as the opencl backend passes it on (seen in a hand-answered run).
TEST(CompilerFeedback, PoclBuildLogErrorIsRecognised) {
  std::string log =
      "clBuildProgram failed with OpenCL error -11:\n"
      "error: kernel.cpp:6:32: use of undeclared identifier 'zero'\n"
      "Device pthread-skylake-avx512 failed to build the program\n";
  std::string fb = format_compiler_feedback(log, "/tmp/w");
  EXPECT_EQ(fb.rfind("1 error, 0 warnings:\nerror: kernel.cpp:6:32: use of undeclared identifier "
                     "'zero'\n",
                     0),
            0u)
      << fb;
}

TEST(CompilerFeedback, LinkerErrorsCount) {
  std::string log =
      "/usr/bin/ld: /tmp/ccB.o: in function `evk_forward':\n"
      "kernel.cpp:(.text+0x5): undefined reference to `nothere()'\n"
      "collect2: error: ld returned 1 exit status\n";
  std::string fb = format_compiler_feedback(log, "/tmp/w");
  EXPECT_NE(fb.find("undefined reference to `nothere()'"), std::string::npos) << fb;
  EXPECT_EQ(fb.rfind("3 errors, 0 warnings:", 0), 0u) << fb;
}

TEST(CompilerFeedback, UnrecognisedOutputIsKeptAndCapped) {
  std::string log(10000, 'x');
  std::string fb = format_compiler_feedback("something odd\n" + log, "/tmp/w", {200});
  EXPECT_LE(fb.size(), 200u);
  EXPECT_EQ(fb.rfind("something odd", 0), 0u);
  EXPECT_NE(fb.find("[feedback cut: "), std::string::npos);
}

TEST(CompilerFeedback, OneHugeErrorStillLeadsAndTheCutIsSaid) {
  std::string name(20000, 'q');
  std::string log = "/w/kernel.cpp:1:1: warning: w\n/w/kernel.cpp:2:3: error: '" + name +
                    "' was not declared in this scope\n";
  FeedbackRule rule;
  std::string fb = format_compiler_feedback(log, "/w", rule);
  EXPECT_LE(fb.size(), rule.cap);
  EXPECT_NE(fb.find("kernel.cpp:2:3: error: 'qqq"), std::string::npos) << fb.substr(0, 300);
  EXPECT_NE(fb.find("[feedback cut: "), std::string::npos);
  EXPECT_EQ(fb.find(": warning: w"), std::string::npos) << "no room was left for the warning";
}

// The cap every verdict's feedback goes through: never longer than the cap, unchanged when it
// fits, and a cut says how much was shown.
TEST(CapFeedback, NeverExceedsTheCapAndSaysWhenCut) {
  for (size_t cap : {64u, 100u, 1000u, static_cast<unsigned>(kFeedbackCap)}) {
    for (size_t n : {size_t{10}, cap, cap + 1, 5 * cap, size_t{100000}}) {
      std::string text;
      for (size_t k = 0; text.size() < n; ++k) text += "line " + std::to_string(k) + "\n";
      text.resize(n);
      std::string out = cap_feedback(text, cap);
      EXPECT_LE(out.size(), cap) << cap << " " << n;
      if (n <= cap) {
        EXPECT_EQ(out, text);
      } else {
        std::smatch m;
        ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(\[feedback cut: (\d+) of (\d+) bytes shown\]\n$)")))
            << out;
        EXPECT_EQ(std::stoul(m[2]), n);
        EXPECT_EQ(out.substr(0, std::stoul(m[1])), text.substr(0, std::stoul(m[1])));
      }
    }
  }
}

}  // namespace
}  // namespace evk
