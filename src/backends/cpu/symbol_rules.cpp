#include "backends/cpu/symbol_rules.h"

#include <fmt/format.h>

#include <set>
#include <string_view>
#include <vector>

namespace evk {
namespace {

// Imports that reach outside the computation: files, processes, network, clocks, threads,
// environment, raw I/O, process exit, signals, memory mapping, BLAS and libtorch.
const std::set<std::string, std::less<>> kForbiddenImports = {
    "open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2", "fopen",
    "fopen64", "freopen", "fdopen", "creat", "creat64", "opendir", "unlink", "unlinkat",
    "rename", "renameat", "remove", "mkdir", "mkdirat", "rmdir", "chmod", "truncate",
    "fork", "vfork", "clone", "clone3", "_Fork", "execve", "execv", "execvp", "execl", "execlp",
    "execle", "execvpe", "execveat", "fexecve", "posix_spawn", "posix_spawnp", "system", "popen",
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg",
    "send", "recv", "recvfrom", "getaddrinfo", "gethostbyname",
    "dlopen", "dlmopen", "dlsym", "dlvsym", "syscall",
    "getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv",
    "clock_gettime", "__clock_gettime", "clock_getres", "gettimeofday", "time", "clock", "times",
    "ftime", "omp_get_wtime", "omp_get_wtick",
    "pthread_create", "pthread_detach", "thrd_create",
    "write", "pwrite", "pwrite64", "writev", "read", "pread", "close", "dup", "dup2", "dup3",
    "fcntl", "ioctl", "exit", "_exit", "_Exit", "quick_exit", "at_quick_exit",
    "signal", "sigaction", "raise", "kill", "tgkill", "ptrace", "prctl", "setpgid", "setsid",
    "mmap", "mmap64", "munmap", "mprotect", "mremap", "madvise", "sbrk", "brk",
};

const std::vector<std::string_view> kForbiddenImportPrefixes = {
    "cblas_", "sgemm", "dgemm", "mkl_", "openblas", "_ZN2at", "_ZN3c10", "_ZN5torch",
    "_ZNSt6thread", "_ZNSt7jthread", "_ZSt5async", "_ZNSt6chrono", "_ZNSt10filesystem",
    "_ZNSt14basic_ifstream", "_ZNSt14basic_ofstream", "_ZNSt13basic_fstream",
    "_ZNSt12__basic_file", "_ZNSt13basic_filebuf",
};

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
                         "replace library functions",
                         s.name);
  for (const auto& s : parse_nm(t.imported)) {
    bool bad = kForbiddenImports.count(s.name) > 0;
    for (auto p : kForbiddenImportPrefixes) bad = bad || std::string_view(s.name).starts_with(p);
    if (bad)
      return fmt::format("the library calls `{}`, which kernels may not use (no files, "
                         "processes, network, clocks, threads other than OpenMP, BLAS or "
                         "libtorch)",
                         s.name);
  }
  return std::nullopt;
}

}  // namespace evk
