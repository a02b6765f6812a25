#include "backends/cpu/source_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <vector>

namespace evk {

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

const std::vector<TokenRule> kForbidden = {
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

// OpenMP clauses (sections, atomic write, ...) are benign: `#pragma omp` lines are blanked
// before the identifier scan (newlines kept, so line numbers hold).
std::string blank_omp_pragmas(std::string code) {
  auto skip_blanks = [&](size_t k) {
    while (k < code.size() && (code[k] == ' ' || code[k] == '\t')) ++k;
    return k;
  };
  for (size_t start = 0; start < code.size();) {
    size_t end = std::min(code.find('\n', start), code.size());
    size_t h = skip_blanks(start);
    size_t k = h < end && code[h] == '#' ? skip_blanks(h + 1) : end;
    size_t m = code.compare(k, 6, "pragma") == 0 ? skip_blanks(k + 6) : end;
    if (m < end && code.compare(m, 3, "omp") == 0 &&
        (m + 3 >= code.size() || !is_ident(code[m + 3])))
      for (size_t q = h; q < end; ++q) code[q] = ' ';
    start = end + 1;
  }
  return code;
}

std::optional<std::string> check_token(const std::string& code, std::string_view tok, size_t i,
                                       size_t j) {
  for (const auto& r : kForbidden) {
    bool hit = token_matches(r.token, tok);
    // `at` and `torch` only as namespaces (at::, torch::): `at` is a common variable name.
    if (hit && (r.token == "at" || r.token == "torch" || r.token == "c10"))
      hit = followed_by_scope(code, j);
    if (hit)
      return fmt::format("line {}: `{}` is not allowed in a kernel: {}", line_of(code, i), tok,
                         r.why);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_cpu_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  std::string no_comments = blank_comments_and_strings(src, false);
  if (auto bad = check_include_lines(
          no_comments, kIncludes,
          "only the C/C++ math, algorithm and container headers, <omp.h>, the x86 intrinsics "
          "headers and \"evokernel/kernel_abi.h\" may be included"))
    return bad;
  std::string code = blank_comments_and_strings(src, true);
  // Line continuations would let a forbidden identifier be split across lines.
  if (size_t k = find_split_identifier(code); k != std::string::npos)
    return fmt::format("line {}: a backslash-newline inside an identifier is not allowed",
                       line_of(code, k));
  std::string scanned = blank_omp_pragmas(code);
  return scan_identifiers(scanned, [&](std::string_view tok, size_t i, size_t j) {
    return check_token(code, tok, i, j);
  });
}

}  // namespace evk
