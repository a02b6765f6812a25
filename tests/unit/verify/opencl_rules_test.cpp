// The opencl backend's source rules on small sources: the program string is found and its
// lines map to kernel.cpp; host code may set up and launch but not compute or touch memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/opencl/opencl_source_rules.h"

namespace evk {
namespace {

const char* kGood = R"(#include "evokernel/opencl.h"
static const char* kSource = R"evk_cl(
__kernel void k(__global const float* x, __global float* y, long n) {
  long i = get_global_id(0);
  for (long r = 0; r < 4; ++r) if (i < n) y[i] = x[i];
}
)evk_cl";
extern "C" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  evk_cl::Runtime& rt = evk_cl::runtime(kSource);
  cl_long reduce = evk_cl::numel(in[0]);
  evk_cl::Buffer x(rt, in[0], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);
  EVK_CL_CHECK(evk_cl::set_args(evk_cl::kernel(rt, "k"), x, y, reduce));
  return evk_cl::finish(rt, y);
}
)";

std::string with_host_line(const std::string& line) {
  std::string s = kGood;
  size_t p = s.find("  return evk_cl::finish");
  return s.insert(p, line + "\n");
}

TEST(OpenClRules, SplitFindsTheProgramAndItsFirstLine) {
  std::string why;
  auto s = split_opencl_source(kGood, &why);
  ASSERT_TRUE(s.has_value()) << why;
  EXPECT_EQ(s->first_line, 2);  // the program's line 1 is the rest of the opening line
  EXPECT_NE(s->kernel.find("__kernel void k"), std::string::npos);
  EXPECT_EQ(s->host.find("__kernel"), std::string::npos);
  EXPECT_EQ(std::count(s->host.begin(), s->host.end(), '\n'),
            std::count(kGood, kGood + strlen(kGood), '\n'));
}

TEST(OpenClRules, CleanCandidatePasses) {
  auto bad = check_opencl_source(kGood);
  EXPECT_FALSE(bad.has_value())
      << *bad;  // loops in the kernel and a variable named reduce are fine
}

TEST(OpenClRules, HostMayNotComputeOrTouchMemory) {
  struct Case {
    std::string line, needle;
  };
  for (const Case& c : std::vector<Case>{
           {"  float f = 1;", "`float`"},
           {"  while (rt.ok()) {}", "`while`"},
           {"  auto [p, a, b, c, d] = in[0]; int* q = (int*)p;", "(int*)"},
           {"  const void * v = &rt;", "void *"},
           {"  int* q = static_cast<int*>(nullptr);", "_cast<int*"},
           {"  std::fill(nullptr, nullptr, 0);", "`fill`"},
           {"  clEnqueueReadBuffer(rt.queue, x.mem, 1, 0, 0, nullptr, 0, nullptr, nullptr);",
            "clEnqueueReadBuffer"},
           {"  clblasSetup();", "clblasSetup"},
           {"#pragma omp parallel", "#pragma"},
       }) {
    auto bad = check_opencl_source(with_host_line(c.line));
    ASSERT_TRUE(bad.has_value()) << c.line;
    EXPECT_NE(bad->find(c.needle), std::string::npos) << c.line << " -> " << *bad;
  }
}

TEST(OpenClRules, ProgramMayNotIncludeOrPrintAndLinesAreThoseOfTheFile) {
  std::string s = kGood;
  s.insert(s.find("__kernel"), "#include \"/etc/passwd\"\n");
  auto bad = check_opencl_source(s);
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find("line 3: #include"), std::string::npos) << *bad;
  s = kGood;
  s.insert(s.find("  long i"), "  printf(\"hi\");\n");
  bad = check_opencl_source(s);
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find("line 4: `printf`"), std::string::npos) << *bad;
}

TEST(OpenClRules, ExactlyOneProgramString) {
  std::string two = std::string(kGood) + "static const char* kOther = R\"evk_cl( )evk_cl\";\n";
  auto bad = check_opencl_source(two);
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find("exactly one"), std::string::npos);
  bad = check_opencl_source("#include \"evokernel/opencl.h\"\nint evk_forward();\n");
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find("found 0 openings"), std::string::npos);
}

}  // namespace
}  // namespace evk
