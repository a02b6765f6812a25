// The static anti-hack rules on source text and on symbol tables.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/cpu/source_rules.h"
#include "backends/cpu/symbol_rules.h"
#include "core/error.h"

namespace evk {
namespace {

const char* kClean = R"SRC(#include "evokernel/kernel_abi.h"
#include <cmath>
#include <omp.h>
// fopen in a comment is fine; so is "socket" in a string
static const char* s = "fork()";
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  int at = 0, thread = omp_get_thread_num();
#pragma omp parallel sections
  {
#pragma omp section
    { at += thread; }
  }
  return at * 0 + (s[0] == 'f' ? 0 : 0);
}
)SRC";

TEST(SourceRules, CleanKernelPasses) { EXPECT_EQ(check_cpu_source(kClean), std::nullopt); }

TEST(SourceRules, NamesTheConstructAndLine) {
  auto bad = check_cpu_source("#include <cmath>\nint f() {\n  return system(\"ls\");\n}\n");
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("line 3"), std::string::npos) << *bad;
  EXPECT_NE(bad->find("system"), std::string::npos) << *bad;
}

TEST(SourceRules, RejectsIncludesOffTheWhitelist) {
  for (const char* inc : {"<unistd.h>", "<thread>", "\"/etc/passwd\"", "<fstream>", "<chrono>"}) {
    auto bad = check_cpu_source(std::string("#include ") + inc + "\n");
    ASSERT_TRUE(bad) << inc;
    EXPECT_NE(bad->find("line 1"), std::string::npos) << *bad;
  }
  EXPECT_TRUE(check_cpu_source("#include_next <cmath>\n"));
  EXPECT_TRUE(check_cpu_source("#define H <unistd.h>\n#include H\n"));
}

TEST(SourceRules, RejectsForbiddenConstructs) {
  for (const char* code :
       {"void f(){ asm(\"nop\"); }", "void f(){ __asm__ volatile(\"\"); }", "long x = syscall(1);",
        "auto t = std::chrono::steady_clock::now();", "void* h = dlopen(0, 0);",
        "int p = pthread_create(0,0,0,0);", "at::Tensor t;", "torch::Tensor t;",
        "void f() { cblas_sgemm(); }", "__attribute__((constructor)) void init() {}",
        "#pragma GCC visibility push(default)\n", "char* e = getenv(\"HOME\");",
        "unsigned long long t = __rdtsc();", "int pid = fork();", "FILE* f = fopen(\"x\", \"w\");"}) {
    EXPECT_TRUE(check_cpu_source(code)) << code;
  }
}

TEST(SourceRules, BlankingKeepsLinesAndRawStrings) {
  std::string s = "a // x\nR\"(fork\n)\" b /* y\n */ c";
  std::string b = blank_comments_and_strings(s, true);
  EXPECT_EQ(b.size(), s.size());
  EXPECT_EQ(std::count(b.begin(), b.end(), '\n'), std::count(s.begin(), s.end(), '\n'));
  EXPECT_EQ(b.find("fork"), std::string::npos);
  EXPECT_NE(b.find('c'), std::string::npos);
}

TEST(SymbolRules, OnlyEvkForwardMayBeExported) {
  SymbolTables t;
  t.exported = "0000000000001139 T evk_forward\n";
  EXPECT_EQ(check_cpu_symbols(t), std::nullopt);
  t.exported += "0000000000001200 T helper\n";
  auto bad = check_cpu_symbols(t);
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("helper"), std::string::npos);
}

TEST(SymbolRules, DefiningALibcSymbolIsRejectedEvenHidden) {
  SymbolTables t;
  t.exported = "0000000000001139 T evk_forward\n";
  t.defined = "0000000000001100 t clock_gettime\n0000000000001139 T evk_forward\n";
  auto bad = check_cpu_symbols(t);
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("clock_gettime"), std::string::npos);
}

TEST(SymbolRules, ForbiddenImportsAreNamed) {
  SymbolTables t;
  t.exported = "0000000000001139 T evk_forward\n";
  t.imported = "                 U memcpy@GLIBC_2.14\n                 U GOMP_parallel@GOMP_4.0\n";
  EXPECT_EQ(check_cpu_symbols(t), std::nullopt);
  for (const char* sym : {"fork@GLIBC_2.2.5", "sgemm_", "_ZNSt6thread15_M_start_threadE",
                          "clock_gettime@GLIBC_2.17", "socket@GLIBC_2.2.5"}) {
    SymbolTables u = t;
    u.imported += std::string("                 U ") + sym + "\n";
    EXPECT_TRUE(check_cpu_symbols(u)) << sym;
  }
}

TEST(Backends, UnknownBackendIsAUsageErrorListingTheKnownOnes) {
  try {
    make_backend("npu");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos);
  }
  EXPECT_EQ(make_backend("cpu")->source_filename(), "kernel.cpp");
}

}  // namespace
}  // namespace evk
