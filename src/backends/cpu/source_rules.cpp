#include "backends/cpu/source_rules.h"

#include <fmt/format.h>

#include <string_view>

#include "backends/cpu/cpu_backend.h"

namespace evk {

namespace {

// Standard headers that cannot reach the operating system, OpenMP, x86 intrinsics and the
// ABI. Not here: files (<fstream>, <filesystem>), threads and clocks (<thread>, <future>,
// <chrono>, <ctime>), signals, locales, <execution>, POSIX headers. A header's declarations
// are not the boundary either way: the library's imports are checked after compiling.
const std::set<std::string, std::less<>> kCpuIncludes = {
    "evokernel/kernel_abi.h",
    // C++ library
    "algorithm", "any", "array", "atomic", "bit", "bitset", "charconv", "compare", "complex",
    "concepts", "coroutine", "deque", "exception", "forward_list", "functional",
    "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator", "limits",
    "list", "map", "memory", "memory_resource", "new", "numbers", "numeric", "optional",
    "ostream", "queue", "random", "ranges", "ratio", "set", "source_location", "span",
    "sstream", "stack", "stdexcept", "streambuf", "string", "string_view", "tuple",
    "type_traits", "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility",
    "valarray", "variant", "vector", "version",
    // C library, C++ spelling
    "cassert", "cctype", "cerrno", "cfenv", "cfloat", "cinttypes", "climits", "cmath",
    "cstdarg", "cstdbool", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctgmath",
    "cuchar", "cwchar", "cwctype",
    // C library, C spelling
    "assert.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "iso646.h", "limits.h",
    "math.h", "stdalign.h", "stdarg.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h",
    "stdlib.h", "string.h", "tgmath.h", "uchar.h", "wchar.h", "wctype.h",
    // OpenMP and x86 SIMD intrinsics
    "omp.h", "immintrin.h", "x86intrin.h", "mmintrin.h", "xmmintrin.h", "emmintrin.h",
    "pmmintrin.h", "tmmintrin.h", "smmintrin.h", "nmmintrin.h", "wmmintrin.h", "ammintrin.h",
};

constexpr std::string_view kIncludesText =
    "only standard C/C++ headers that cannot reach the operating system (no <fstream>, "
    "<filesystem>, <thread>, <chrono>, <ctime>, <csignal>, POSIX headers), <omp.h>, the x86 "
    "intrinsics headers and \"evokernel/kernel_abi.h\" may be included";

struct Rule {
  std::string_view name;
  std::string_view why;
};

// Identifiers that are keywords or reserved builtins: no honest helper can be named so.
const Rule kForbiddenWords[] = {
    {"asm", "inline assembly"},
    {"__asm__", "inline assembly"},
    {"__asm", "inline assembly"},
    {"__rdtsc", "reading the time stamp counter (the harness owns the clock)"},
    {"__rdtscp", "reading the time stamp counter (the harness owns the clock)"},
    {"__builtin_ia32_rdtsc", "reading the time stamp counter (the harness owns the clock)"},
    {"__builtin_ia32_rdtscp", "reading the time stamp counter (the harness owns the clock)"},
    {"__builtin_readcyclecounter", "reading the cycle counter (the harness owns the clock)"},
    {"__rdpmc", "reading performance counters"},
    {"__builtin_ia32_rdpmc", "reading performance counters"},
};

constexpr std::string_view kLoadTime =
    "code that runs when the library loads or unloads (use a function-local static for "
    "one-time set-up)";

const Rule kForbiddenAttributes[] = {
    {"constructor", kLoadTime},
    {"destructor", kLoadTime},
    {"init_priority", kLoadTime},
    {"ifunc", "resolvers run when the library loads"},
    {"target_clones", "its resolver runs when the library loads (use target(\"...\"))"},
    {"section", "placing code or data in a section of one's choosing"},
    {"alias", "symbol aliases"},
    {"weakref", "symbol aliases"},
    {"symver", "symbol versions"},
};

int row_line(const PreprocessedSource& pp, const std::string& code, size_t pos) {
  size_t row = static_cast<size_t>(line_of(code, pos) - 1);
  return row < pp.row_line.size() ? pp.row_line[row] : 0;
}

}  // namespace

std::optional<std::string> check_preprocessed_cxx(const PreprocessedSource& pp,
                                                  const std::set<std::string, std::less<>>& allowed,
                                                  std::string_view allowed_text) {
  for (const auto& inc : pp.includes)
    if (inc.header.empty() || !allowed.count(inc.header)) {
      std::string what = inc.header.empty() ? "\"" + inc.path + "\"" : "<" + inc.header + ">";
      return fmt::format("line {}: #include {} is not allowed: {}", inc.line, what, allowed_text);
    }
  std::string code;
  for (const auto& r : pp.rows) code += r + "\n";
  code = blank_preprocessed_literals(code);
  if (auto bad = scan_identifiers(code, [&](std::string_view tok, size_t i, size_t) -> std::optional<std::string> {
        for (const auto& r : kForbiddenWords)
          if (tok == r.name)
            return fmt::format("line {}: `{}` is not allowed in a kernel: {}",
                               row_line(pp, code, i), tok, r.why);
        return std::nullopt;
      }))
    return bad;
  return scan_attributes(code, [&](std::string_view name, size_t pos) -> std::optional<std::string> {
    for (const auto& r : kForbiddenAttributes)
      if (name == r.name)
        return fmt::format("line {}: the attribute `{}` is not allowed in a kernel: {}",
                           row_line(pp, code, pos), name, r.why);
    return std::nullopt;
  });
}

std::optional<std::string> check_cpu_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  PreprocessSpec spec;
  spec.argv = CpuBackend::preprocess_argv();
  PreprocessOutcome pp = preprocess_candidate(src, spec);
  if (pp.refusal) return pp.refusal;
  // A preprocessor error (a missing header, #error): the compile reports it, unless the text
  // names a header off the allowlist, which says more.
  if (!pp.source)
    return check_include_lines(blank_comments_and_strings(src, false), kCpuIncludes, kIncludesText);
  return check_preprocessed_cxx(*pp.source, kCpuIncludes, kIncludesText);
}

}  // namespace evk
