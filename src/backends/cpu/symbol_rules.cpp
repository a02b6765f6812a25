#include "backends/cpu/symbol_rules.h"

#include <fmt/format.h>

#include <set>
#include <string_view>
#include <vector>

namespace evk {
namespace {

// Names the runner or the C library own: defining one (even hidden) is an attempt to
// interpose on the harness (its clock, its allocator, its copies).
const std::set<std::string, std::less<>> kLibcNames = {
    "clock_gettime", "__clock_gettime", "gettimeofday", "time", "clock", "nanosleep",
    "malloc", "free", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign",
    "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "printf", "fprintf", "puts",
    "write", "read", "open", "close", "exit", "_exit", "abort", "dlopen", "dlsym",
    "omp_get_wtime", "omp_set_num_threads", "omp_get_num_threads", "GOMP_parallel",
    "__libc_start_main", "__cxa_atexit", "qsort", "fork", "execve", "socket", "syscall",
};

}  // namespace

std::optional<std::string> check_cpu_symbols(const SymbolTables& t) {
  for (const auto& s : parse_nm(t.exported)) {
    if (s.name == "evk_forward") continue;
    if (is_weak_std_instance(s)) continue;
    if (kLibcNames.count(s.name))
      return fmt::format("the library defines the C library symbol `{}`: kernels must not "
                         "replace library functions",
                         s.name);
    return fmt::format("the library exports `{}`: only evk_forward may be exported (make "
                       "helpers static or put them in an anonymous namespace)",
                       s.name);
  }
  for (const auto& s : parse_nm(t.defined))
    if (kLibcNames.count(s.name))
      return fmt::format("the library defines the C library symbol `{}`: kernels must not "
                         "replace library functions (a helper of that name must be static or "
                         "in a namespace)",
                         s.name);
  return std::nullopt;
}

}  // namespace evk
