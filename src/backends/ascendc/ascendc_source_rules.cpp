#include "backends/ascendc/ascendc_source_rules.h"

#include <fmt/format.h>

#include <set>
#include <vector>

#include "backends/source_scan.h"

namespace evk {
namespace {

const std::set<std::string, std::less<>> kIncludes = {
    "kernel_operator.h",
    "lib/matmul_intf.h",
    "tiling/tiling_api.h",
    "evokernel/kernel_abi.h",
    // The host side of a CANN operator project and of a kernel-invocation program.
    "register/op_def_registry.h",
    "register/tilingdata_base.h",
    "tiling/platform/platform_ascendc.h",
    "acl/acl.h",
    "algorithm",
    "array",
    "cassert",
    "cfloat",
    "cinttypes",
    "climits",
    "cmath",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cstring",
    "initializer_list",
    "limits",
    "numeric",
    "type_traits",
    "utility",
    "vector",
    "assert.h",
    "float.h",
    "limits.h",
    "math.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
};

const std::vector<TokenRule> kForbidden = {
    {"evk_acl_*", "the emulator's internal entry points (use the Ascend C API)"},
    {"evk_ascendc_launch", "the launch's internals (use ACLRT_LAUNCH_KERNEL)"},
    {"evk_detail", "the API's internals"},
    {"aclnn*", "the vendor operator library (write the kernel yourself)"},
    {"aclop*", "the vendor operator library (write the kernel yourself)"},
    {"asm", "inline assembly"},
    {"__asm__", "inline assembly"},
    {"__asm", "inline assembly"},
    {"syscall", "raw system calls"},
    {"__rdtsc", "reading the time stamp counter"},
    {"__builtin_ia32_rdtsc", "reading the time stamp counter"},
    {"dlopen", "loading libraries"},
    {"dlsym", "looking up symbols"},
    {"fopen", "file access"},
    {"open", "file access"},
    {"openat", "file access"},
    {"ifstream", "file access"},
    {"ofstream", "file access"},
    {"fstream", "file access"},
    {"filesystem", "file access"},
    {"write", "raw I/O"},
    {"close", "raw I/O"},
    {"socket", "network access"},
    {"connect", "network access"},
    {"fork", "creating processes"},
    {"vfork", "creating processes"},
    {"clone", "creating processes"},
    {"execve", "running programs"},
    {"execv", "running programs"},
    {"execvp", "running programs"},
    {"system", "running programs"},
    {"popen", "running programs"},
    {"getenv", "reading the environment"},
    {"setenv", "changing the environment"},
    {"environ", "reading the environment"},
    {"clock_gettime", "timers"},
    {"gettimeofday", "timers"},
    {"chrono", "timers"},
    {"pthread_*", "threads (the AI Cores are the parallelism)"},
    {"thread", "threads (the AI Cores are the parallelism)"},
    {"jthread", "threads (the AI Cores are the parallelism)"},
    {"async", "threads (the AI Cores are the parallelism)"},
    {"omp_*", "OpenMP (the AI Cores are the parallelism: blockDim)"},
    {"mmap", "mapping memory"},
    {"munmap", "mapping memory"},
    {"mprotect", "changing memory protection"},
    {"signal", "signal handlers"},
    {"sigaction", "signal handlers"},
    {"setjmp", "non-local jumps"},
    {"longjmp", "non-local jumps"},
    {"ptrace", "tracing processes"},
    {"kill", "signalling processes"},
    {"exit", "ending the process"},
    {"_exit", "ending the process"},
    {"_Exit", "ending the process"},
    {"constructor", "code that runs when the library loads"},
    {"destructor", "code that runs when the library unloads"},
    {"init_priority", "code that runs when the library loads"},
    {"alias", "symbol aliases"},
    {"visibility", "changing symbol visibility (use EVK_EXPORT)"},
    {"torch", "libtorch"},
    {"cblas_*", "BLAS"},
};

// `x.t_` / `x->t_`: the handle inside LocalTensor/GlobalTensor. Editing it would forge an
// address the API then trusts as far as its range checks go.
std::optional<std::string> check_internals(const std::string& code) {
  for (size_t k = code.find("t_"); k != std::string::npos; k = code.find("t_", k + 1)) {
    if (k + 2 < code.size() && is_ident(code[k + 2])) continue;
    size_t b = k;
    if (b > 0 && is_ident(code[b - 1])) continue;
    while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t')) --b;
    bool member = (b >= 1 && code[b - 1] == '.') || (b >= 2 && code.compare(b - 2, 2, "->") == 0);
    if (member)
      return fmt::format(
          "line {}: `.t_` is the API object's internal handle: tensors are used "
          "only through the Ascend C API",
          line_of(code, k));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_ascendc_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  std::string no_comments = blank_comments_and_strings(src, false);
  if (auto bad = check_include_lines(
          no_comments, kIncludes,
          "include \"kernel_operator.h\" (and \"lib/matmul_intf.h\", \"tiling/tiling_api.h\" for "
          "Matmul; \"register/op_def_registry.h\", \"register/tilingdata_base.h\", "
          "\"tiling/platform/platform_ascendc.h\", \"acl/acl.h\" on the host side); only the "
          "C/C++ math and algorithm headers may be added"))
    return bad;
  std::string code = blank_comments_and_strings(src, true);
  if (size_t k = find_split_identifier(code); k != std::string::npos)
    return fmt::format("line {}: a backslash-newline inside an identifier is not allowed",
                       line_of(code, k));
  if (auto bad = check_internals(code)) return bad;
  return scan_identifiers(
      code, [&](std::string_view tok, size_t i, size_t) -> std::optional<std::string> {
        for (const auto& r : kForbidden)
          if (token_matches(r.token, tok))
            return fmt::format("line {}: `{}` is not allowed in an Ascend C kernel: {}",
                               line_of(code, i), tok, r.why);
        return std::nullopt;
      });
}

}  // namespace evk
