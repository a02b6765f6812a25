// The static anti-hack rules: on the preprocessed source (what the compiler sees), on the built
// library's symbol tables, its imports (an allowlist) and its load-time code.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "backends/cpu/source_rules.h"
#include "backends/cpu/symbol_rules.h"
#include "backends/elf_image.h"
#include "backends/import_rules.h"
#include "backends/load_time_rules.h"
#include "backends/preprocessed.h"
#include "core/error.h"
#include "core/temp_dir.h"

namespace evk {
namespace {

const char* kCleanCpu = R"SRC(#include "evokernel/kernel_abi.h"
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

TEST(SourceRules, CleanKernelPasses) { EXPECT_EQ(check_cpu_source(kCleanCpu), std::nullopt); }

TEST(SourceRules, NamesAreNotRules) {
  // A local, a lambda or a helper may be named like a C library function: the rules ban calls
  // (checked on the library's imports) and attributes, not spellings.
  const char* code = R"SRC(#include <cstdio>
#include <cstdlib>
namespace { int write(int v) { return v; } }
int f() {
  int signal = 1, section = 2, dup = 3, close = 4, open = 5, time = 6, exit = 7;
  auto system = [](int v) { return v + 1; };
  struct { int constructor, destructor, visibility; } attrs{0, 0, 0};
  return write(signal + section + dup + close + open + time + exit) + system(0) + attrs.constructor;
}
)SRC";
  EXPECT_EQ(check_cpu_source(code), std::nullopt);
}

TEST(SourceRules, StandardHeadersThatCannotReachTheSystemAreAllowed) {
  for (const char* h : {"stdexcept", "string_view", "span", "bit", "cfenv", "numbers", "random",
                        "iostream", "sstream", "immintrin.h", "omp.h", "functional"})
    EXPECT_EQ(check_cpu_source(std::string("#include <") + h + ">\nint x;\n"), std::nullopt) << h;
}

TEST(SourceRules, RejectsIncludesOffTheAllowlistWithTheirLine) {
  for (const char* inc : {"<unistd.h>", "<thread>", "\"/etc/passwd\"", "<fstream>", "<chrono>",
                          "<sys/mman.h>", "<bits/stdc++.h>", "<dlfcn.h>"}) {
    auto bad = check_cpu_source(std::string("#include <cmath>\n#include ") + inc + "\n");
    ASSERT_TRUE(bad) << inc;
    EXPECT_NE(bad->find("line 2"), std::string::npos) << *bad;
  }
  // However the directive is spelled: a digraph, a line continuation, a macro.
  for (const char* code : {"%:include <unistd.h>\n", "#\\\ninclude <unistd.h>\n",
                           "#define H <unistd.h>\n#include H\n", "# /**/ include <unistd.h>\n"}) {
    auto bad = check_cpu_source(code);
    ASSERT_TRUE(bad) << code;
    EXPECT_NE(bad->find("unistd.h"), std::string::npos) << *bad;
  }
}

TEST(SourceRules, RejectsAssemblyAndCountersHoweverSpelled) {
  for (const char* code :
       {"void f(){ asm(\"nop\"); }", "void f(){ __asm__ volatile(\"\"); }",
        "#define CAT(a,b) a##b\nvoid f(){ CAT(__as,m__)(\"nop\"); }",
        "void f(){ __as\\\nm__(\"nop\"); }",
        "long k = 1'0 + [] { __asm__(\"nop\"); return 0; }() + 2'0;",
        "#include <immintrin.h>\nunsigned long long t() { return __rdtsc(); }",
        "#include <x86intrin.h>\nunsigned long long t() { return _rdtsc(); }"}) {
    auto bad = check_cpu_source(code);
    EXPECT_TRUE(bad) << code;
  }
}

TEST(SourceRules, ReportsTheCandidatesLine) {
  auto bad = check_cpu_source("#include <vector>\n#include <cmath>\n\nint f() {\n  asm(\"nop\");\n  return 0;\n}\n");
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("line 5"), std::string::npos) << *bad;
  EXPECT_NE(bad->find("inline assembly"), std::string::npos) << *bad;
}

TEST(SourceRules, RejectsLoadTimeAndSectionAttributesInEveryForm) {
  for (const char* code :
       {"__attribute__((constructor)) void init() {}", "__attribute__((__destructor__)) void f() {}",
        "[[gnu::constructor]] void init() {}", "[[using gnu: destructor]] void f() {}",
        "<:<:gnu::section(\".x\"):>:> int v;", "__attribute__((aligned(64), section(\".x\"))) int v;",
        "struct S { S(); }; S s __attribute__((init_priority(200)));",
        "__attribute__((target_clones(\"avx2\",\"default\"))) int f() { return 1; }",
        "int g() { return 0; }\nint f() __attribute__((alias(\"_Z1gv\")));"}) {
    auto bad = check_cpu_source(code);
    ASSERT_TRUE(bad) << code;
    EXPECT_NE(bad->find("attribute"), std::string::npos) << *bad;
  }
  for (const char* code :
       {"__attribute__((aligned(64))) float t[16];", "[[nodiscard]] int f();",
        "[[gnu::always_inline]] inline int f() { return 1; }",
        "__attribute__((target(\"avx2\"))) int f() { return 1; }",
        "#include \"evokernel/kernel_abi.h\"\nextern \"C\" EVK_EXPORT int g();",
        "int a[2]; int f() { return a[ [](){ return 0; }() ]; }"})
    EXPECT_EQ(check_cpu_source(code), std::nullopt) << code;
}

TEST(SourceRules, LineTamperingIsRefused) {
  for (const char* code :
       {"#define H #\nH 1 \"/usr/include/stdio.h\" 1 3\nvoid f() { asm(\"nop\"); }\n",
        "#line 1 \"/usr/include/stdio.h\"\nvoid f() { asm(\"nop\"); }\n",
        "# 1 \"/usr/include/stdio.h\" 1 3\nvoid f() { asm(\"nop\"); }\n# 4 \"kernel.cpp\" 2\n"}) {
    auto bad = check_cpu_source(code);
    ASSERT_TRUE(bad) << code;
  }
  auto bad = check_cpu_source("#line 1 \"/usr/include/stdio.h\"\nint x;\n");
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("line markers"), std::string::npos) << *bad;
}

TEST(SourceRules, APreprocessorErrorIsLeftToTheCompileUnlessAHeaderIsOffTheList) {
  EXPECT_EQ(check_cpu_source("#include <cmath>\n#error the candidate says no\n"), std::nullopt);
  // A header that does not exist here (libtorch) still gets the allowlist's feedback.
  auto bad = check_cpu_source("#include <torch/extension.h>\n");
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("torch/extension.h"), std::string::npos) << *bad;
}

TEST(Preprocessed, MarkersAreCheckedAgainstTheOpenedFiles) {
  const std::string text =
      "# 0 \"kernel.cpp\"\n# 0 \"<built-in>\"\n# 0 \"<command-line>\"\n"
      "# 1 \"/usr/include/stdc-predef.h\" 1 3 4\n# 0 \"<command-line>\" 2\n# 1 \"kernel.cpp\"\n"
      "# 1 \"/usr/include/c++/12/cmath\" 1 3\nint sys;\n# 2 \"kernel.cpp\" 2\n\nint mine;\n";
  auto ok = parse_preprocessed(text, ". /usr/include/c++/12/cmath\n", "kernel.cpp",
                               {"/usr/include/c++/12", "/usr/include"});
  ASSERT_TRUE(ok.source);
  ASSERT_EQ(ok.source->includes.size(), 1u);
  EXPECT_EQ(ok.source->includes[0].header, "cmath");
  EXPECT_EQ(ok.source->includes[0].line, 1);
  ASSERT_EQ(ok.source->rows.size(), 2u);
  EXPECT_EQ(ok.source->rows[1], "int mine;");
  EXPECT_EQ(ok.source->row_line[1], 3);
  // The same text without the -H line: a marker the compiler did not open.
  EXPECT_TRUE(parse_preprocessed(text, "", "kernel.cpp", {}).refusal);
  // A return to a file that is not the includer.
  EXPECT_TRUE(parse_preprocessed(text + "# 9 \"other.cpp\" 2\n", ". /usr/include/c++/12/cmath\n",
                                 "kernel.cpp", {})
                  .refusal);
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

ElfImage with_imports(std::vector<ElfImport> imports) {
  ElfImage img;
  img.imports = std::move(imports);
  return img;
}

TEST(ImportRules, WhatKernelsNeedIsAllowed) {
  ElfImage img = with_imports({{"memcpy", "libc.so.6"},
                               {"expf", "libm.so.6"},
                               {"_ZGVdN8v_expf", "libmvec.so.1"},
                               {"GOMP_parallel", "libgomp.so.1"},
                               {"omp_get_thread_num", "libgomp.so.1"},
                               {"_Znwm", "libstdc++.so.6"},
                               {"_ZdlPvm", "libstdc++.so.6"},
                               {"__cxa_guard_acquire", "libstdc++.so.6"},
                               {"__cxa_atexit", "libc.so.6"},
                               {"_ZNSt13runtime_errorC1EPKc", "libstdc++.so.6"},
                               {"_ZSt20__throw_length_errorPKc", "libstdc++.so.6"},
                               {"_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base", "libstdc++.so.6"},
                               {"printf", "libc.so.6"},
                               {"fwrite", "libc.so.6"},
                               {"stderr", "libc.so.6"},
                               {"__pthread_key_create", "", true},
                               {"__gmon_start__", "", true},
                               {"__libc_single_threaded", "libc.so.6"}});
  EXPECT_EQ(check_kernel_imports(img), std::nullopt);
}

TEST(ImportRules, AnythingElseIsNamedWithItsLibrary) {
  const std::vector<ElfImport> refused = {
      {"fopen", "libc.so.6"},          {"dl_iterate_phdr", "libc.so.6"},
      {"dlsym", "libc.so.6"},          {"getpid", "libc.so.6"},
      {"setpriority", "libc.so.6"},    {"omp_get_wtime", "libgomp.so.1"},
      {"sgemm_", ""},                  {"evk_runner_internal", ""},
      {"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", "libstdc++.so.6"},
      {"_ZNSt6chrono3_V212steady_clock3nowEv", "libstdc++.so.6"},
      {"__environ", "libc.so.6"},      {"clock_gettime", "libc.so.6"}};
  for (const auto& imp : refused) {
    auto bad = check_kernel_imports(with_imports({{"memcpy", "libc.so.6"}, imp}));
    ASSERT_TRUE(bad) << imp.name;
    EXPECT_NE(bad->find(imp.library.empty() ? "no linked library" : imp.library), std::string::npos)
        << *bad;
  }
  auto bad = check_kernel_imports(with_imports({{"_ZNSt6chrono3_V212steady_clock3nowEv", "libstdc++.so.6"}}));
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("std::chrono::_V2::steady_clock::now()"), std::string::npos) << *bad;
  // A backend may add a library (the OpenCL host code's libOpenCL).
  EXPECT_TRUE(check_kernel_imports(with_imports({{"clFinish", "libOpenCL.so.1"}})));
  EXPECT_EQ(check_kernel_imports(with_imports({{"clFinish", "libOpenCL.so.1"}}), {"libOpenCL.so.1"}),
            std::nullopt);
}

// The gates after compiling, on libraries the real compiler builds.
class LibraryRules : public ::testing::Test {
 protected:
  std::optional<std::string> verdict(const std::string& src) {
    auto cpu = make_backend("cpu");
    TempDir dir("evk-rules-test-");
    CompileResult r = cpu->compile(src, dir.path(), 120);
    if (!r.ok) return "compile failed: " + r.feedback;
    return cpu->check_artifact(r.artifact);
  }
};

const char* kAbi = "#include \"evokernel/kernel_abi.h\"\n";

TEST_F(LibraryRules, FunctionLocalStaticsWithDestructorsPass) {
  EXPECT_EQ(verdict(std::string(kAbi) +
                    "#include <vector>\n#include <string>\n#include <stdexcept>\n"
                    "extern \"C\" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {\n"
                    "  static std::vector<float> buf(16);\n  static std::string name = \"x\";\n"
                    "  if (buf.empty()) throw std::runtime_error(name);\n  return 0;\n}\n"),
            std::nullopt);
}

TEST_F(LibraryRules, IostreamsOwnInitialiserPassesButACandidatesDoesNot) {
  std::string body =
      "extern \"C\" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {\n"
      "  std::cout << \"hi\" << std::endl;\n  return 0;\n}\n";
  EXPECT_EQ(verdict(std::string(kAbi) + "#include <iostream>\n" + body), std::nullopt);
  auto bad = verdict(std::string(kAbi) + "#include <iostream>\n#include <vector>\n"
                     "namespace { std::vector<int> global(4); }\n" + body);
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("function-local static"), std::string::npos) << *bad;
}

TEST_F(LibraryRules, GlobalObjectsAndThreadLocalConstructorsAreLoadTimeCode) {
  for (const char* decl : {"namespace { struct A { A() { v = 1; } int v; } a; }\n",
                           "namespace { struct D { ~D() { } int v = 0; } d; }\n",
                           "#include <vector>\nstatic std::vector<float> scratch;\n",
                           "#include <vector>\nthread_local std::vector<float> tl(4);\n"}) {
    auto bad = verdict(std::string(kAbi) + decl +
                       "extern \"C\" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) { return 0; }\n");
    EXPECT_TRUE(bad) << decl;
  }
}

TEST_F(LibraryRules, ACallOffTheAllowlistIsNamed) {
  auto bad = verdict(std::string(kAbi) + "#include <cstdlib>\n"
                     "extern \"C\" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {\n"
                     "  return system(\"true\");\n}\n");
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("`system`"), std::string::npos) << *bad;
  EXPECT_NE(bad->find("libc.so.6"), std::string::npos) << *bad;
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
