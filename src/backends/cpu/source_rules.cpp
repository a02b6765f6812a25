#include "backends/cpu/source_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

namespace evk {

std::string blank_comments_and_strings(const std::string& s, bool strings) {
  std::string out = s;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  size_t i = 0, n = s.size();
  while (i < n) {
    if (s.compare(i, 2, "//") == 0) {
      size_t e = s.find('\n', i);
      e = e == std::string::npos ? n : e;
      blank(i, e);
      i = e;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (s[i] == 'R' && i + 1 < n && s[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
      size_t paren = s.find('(', i + 2);
      if (paren == std::string::npos) break;
      std::string close = ")" + s.substr(i + 2, paren - i - 2) + "\"";
      size_t e = s.find(close, paren);
      e = e == std::string::npos ? n : e + close.size();
      if (strings) blank(i + 1, e);
      i = e;
    } else if (s[i] == '"' || s[i] == '\'') {
      char q = s[i];
      size_t e = i + 1;
      while (e < n && s[e] != q && s[e] != '\n') e += s[e] == '\\' ? 2 : 1;
      e = std::min(n, e + 1);
      if (strings) blank(i + 1, e - 1);
      i = e;
    } else {
      ++i;
    }
  }
  return out;
}

namespace {

// Headers a kernel needs: C/C++ math, algorithms, containers, OpenMP, x86 SIMD intrinsics and
// the ABI. Nothing that reaches files, processes, threads, clocks or the network.
const std::set<std::string, std::less<>> kIncludes = {
    "evokernel/kernel_abi.h",
    "algorithm", "array", "atomic", "bitset", "cassert", "cfloat", "cinttypes", "climits",
    "cmath", "complex", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "deque",
    "functional", "initializer_list", "iostream", "iterator", "limits", "map", "memory", "new",
    "numeric", "optional", "queue", "set", "stack", "string", "tuple", "type_traits",
    "unordered_map", "unordered_set", "utility", "variant", "vector",
    "assert.h", "float.h", "inttypes.h", "limits.h", "math.h", "stdbool.h", "stddef.h",
    "stdint.h", "stdio.h", "stdlib.h", "string.h",
    "omp.h", "immintrin.h", "x86intrin.h", "xmmintrin.h", "emmintrin.h", "pmmintrin.h",
    "tmmintrin.h", "smmintrin.h", "nmmintrin.h", "wmmintrin.h",
};

struct Rule {
  std::string_view token;  // a whole identifier, or a prefix when it ends with '*'
  std::string_view why;
};

const std::vector<Rule> kForbidden = {
    {"asm", "inline assembly"}, {"__asm__", "inline assembly"}, {"__asm", "inline assembly"},
    {"syscall", "raw system calls"}, {"__builtin_ia32_rdtsc", "reading the time stamp counter"},
    {"__rdtsc", "reading the time stamp counter"}, {"__rdtscp", "reading the time stamp counter"},
    {"_rdtsc", "reading the time stamp counter"}, {"rdtsc", "reading the time stamp counter"},
    {"dlopen", "loading libraries"}, {"dlsym", "looking up symbols"}, {"dlvsym", "looking up symbols"},
    {"fopen", "file access"}, {"freopen", "file access"}, {"fdopen", "file access"},
    {"open", "file access"}, {"openat", "file access"}, {"creat", "file access"},
    {"ifstream", "file access"}, {"ofstream", "file access"}, {"fstream", "file access"},
    {"filesystem", "file access"}, {"unlink", "file access"}, {"mkdir", "file access"},
    {"chmod", "file access"}, {"fwrite", "file access"}, {"write", "raw I/O"}, {"pwrite", "raw I/O"},
    {"close", "raw I/O"}, {"dup", "raw I/O"}, {"dup2", "raw I/O"},
    {"socket", "network access"}, {"connect", "network access"}, {"gethostbyname", "network access"},
    {"getaddrinfo", "network access"},
    {"fork", "creating processes"}, {"vfork", "creating processes"}, {"clone", "creating processes"},
    {"execl", "running programs"}, {"execlp", "running programs"}, {"execle", "running programs"},
    {"execv", "running programs"}, {"execvp", "running programs"}, {"execve", "running programs"},
    {"execvpe", "running programs"}, {"posix_spawn", "running programs"},
    {"system", "running programs"}, {"popen", "running programs"},
    {"getenv", "reading the environment"}, {"secure_getenv", "reading the environment"},
    {"setenv", "changing the environment"}, {"putenv", "changing the environment"},
    {"environ", "reading the environment"},
    {"clock_gettime", "timers (the harness owns the clock)"},
    {"gettimeofday", "timers (the harness owns the clock)"},
    {"chrono", "timers (the harness owns the clock)"}, {"omp_get_wtime", "timers (the harness owns the clock)"},
    {"pthread_*", "threads other than OpenMP"}, {"thrd_create", "threads other than OpenMP"},
    {"jthread", "threads other than OpenMP"}, {"async", "threads other than OpenMP"},
    {"mmap", "mapping memory"}, {"munmap", "mapping memory"}, {"mprotect", "changing memory protection"},
    {"signal", "signal handlers"}, {"sigaction", "signal handlers"}, {"ptrace", "tracing processes"},
    {"kill", "signalling processes"}, {"prctl", "process control"},
    {"exit", "ending the process"}, {"_exit", "ending the process"}, {"_Exit", "ending the process"},
    {"quick_exit", "ending the process"},
    {"constructor", "code that runs when the library loads"},
    {"destructor", "code that runs when the library unloads"},
    {"init_priority", "code that runs when the library loads"},
    {"ifunc", "code that runs when the library loads"}, {"section", "custom sections"},
    {"alias", "symbol aliases"}, {"visibility", "changing symbol visibility (use EVK_EXPORT)"},
    {"cblas_*", "BLAS (write the kernel yourself)"}, {"sgemm_", "BLAS (write the kernel yourself)"},
    {"dgemm_", "BLAS (write the kernel yourself)"}, {"sgemm", "BLAS (write the kernel yourself)"},
    {"dgemm", "BLAS (write the kernel yourself)"}, {"mkl_*", "MKL (write the kernel yourself)"},
    {"torch", "libtorch (write the kernel yourself)"}, {"at", "libtorch's at:: namespace"},
    {"c10", "libtorch (write the kernel yourself)"},
};

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

int line_of(const std::string& s, size_t pos) {
  int line = 1;
  for (size_t k = 0; k < pos && k < s.size(); ++k) line += s[k] == '\n';
  return line;
}

std::optional<std::string> check_includes(const std::string& no_comments) {
  std::istringstream in(no_comments);
  std::string line;
  for (int ln = 1; std::getline(in, line); ++ln) {
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line[p] != '#') continue;
    size_t d = line.find_first_not_of(" \t", p + 1);
    if (d == std::string::npos) continue;
    std::string_view rest(line.c_str() + d);
    for (std::string_view bad : {"include_next", "import", "embed"})
      if (rest.substr(0, bad.size()) == bad)
        return fmt::format("line {}: #{} is not allowed: use #include of a whitelisted header", ln, bad);
    if (rest.substr(0, 7) != "include") continue;
    size_t open = line.find_first_of("<\"", d + 7);
    size_t close = open == std::string::npos ? open : line.find_first_of(">\"", open + 1);
    if (open == std::string::npos || close == std::string::npos)
      return fmt::format("line {}: #include must name a header in <> or \"\" (no macros)", ln);
    std::string header = line.substr(open + 1, close - open - 1);
    if (!kIncludes.count(header))
      return fmt::format(
          "line {}: #include <{}> is not allowed: only the C/C++ math, algorithm and container "
          "headers, <omp.h>, the x86 intrinsics headers and \"evokernel/kernel_abi.h\" may be "
          "included",
          ln, header);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_cpu_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  std::string no_comments = blank_comments_and_strings(src, false);
  if (auto bad = check_includes(no_comments)) return bad;
  std::string code = blank_comments_and_strings(src, true);
  // Line continuations would let a forbidden identifier be split across lines.
  for (size_t k = 0; k + 1 < code.size(); ++k)
    if (code[k] == '\\' && code[k + 1] == '\n' && k > 0 && is_ident(code[k - 1]) &&
        k + 2 < code.size() && is_ident(code[k + 2]))
      return fmt::format("line {}: a backslash-newline inside an identifier is not allowed",
                         line_of(code, k));
  size_t i = 0, n = code.size();
  while (i < n) {
    // OpenMP clauses (sections, atomic write, ...) are benign: skip `#pragma omp` lines.
    if (code[i] == '#' && (i == 0 || code.find_last_not_of(" \t", i - 1) == std::string::npos ||
                           code[code.find_last_not_of(" \t", i - 1)] == '\n')) {
      size_t k = code.find_first_not_of(" \t", i + 1);
      if (k != std::string::npos && code.compare(k, 6, "pragma") == 0) {
        size_t m = code.find_first_not_of(" \t", k + 6);
        if (m != std::string::npos && code.compare(m, 3, "omp") == 0 &&
            (m + 3 >= n || !is_ident(code[m + 3]))) {
          size_t e = code.find('\n', m);
          i = e == std::string::npos ? n : e;
          continue;
        }
      }
    }
    if (!is_ident(code[i]) || std::isdigit(static_cast<unsigned char>(code[i]))) {
      // Skip numbers whole (1e5f is not an identifier).
      if (std::isdigit(static_cast<unsigned char>(code[i])))
        while (i < n && (is_ident(code[i]) || code[i] == '.')) ++i;
      else
        ++i;
      continue;
    }
    size_t j = i;
    while (j < n && is_ident(code[j])) ++j;
    std::string_view tok(code.data() + i, j - i);
    for (const auto& r : kForbidden) {
      bool prefix = r.token.back() == '*';
      std::string_view t = prefix ? r.token.substr(0, r.token.size() - 1) : r.token;
      bool hit = prefix ? tok.substr(0, t.size()) == t : tok == t;
      // `at` and `torch` only as namespaces (at::, torch::): `at` is a common variable name.
      if (hit && (r.token == "at" || r.token == "torch" || r.token == "c10")) {
        size_t k = j;
        while (k < n && (code[k] == ' ' || code[k] == '\t')) ++k;
        hit = code.compare(k, 2, "::") == 0;
      }
      if (hit)
        return fmt::format("line {}: `{}` is not allowed in a kernel: {}", line_of(code, i), tok,
                           r.why);
    }
    i = j;
  }
  return std::nullopt;
}

}  // namespace evk
