#include "backends/cuda/cuda_symbol_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <string_view>
#include <vector>

namespace evk {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// Host-side imports that reach outside the computation (the CPU backend's list).
const std::set<std::string, std::less<>> kForbiddenImports = {
    "open",
    "open64",
    "openat",
    "openat64",
    "__open_2",
    "__open64_2",
    "__openat_2",
    "fopen",
    "fopen64",
    "freopen",
    "fdopen",
    "creat",
    "creat64",
    "opendir",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "remove",
    "mkdir",
    "mkdirat",
    "rmdir",
    "chmod",
    "truncate",
    "fork",
    "vfork",
    "clone",
    "clone3",
    "_Fork",
    "execve",
    "execv",
    "execvp",
    "execl",
    "execlp",
    "execle",
    "execvpe",
    "execveat",
    "fexecve",
    "posix_spawn",
    "posix_spawnp",
    "system",
    "popen",
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "sendmsg",
    "send",
    "recv",
    "recvfrom",
    "getaddrinfo",
    "gethostbyname",
    "dlopen",
    "dlmopen",
    "dlsym",
    "dlvsym",
    "syscall",
    "getenv",
    "secure_getenv",
    "setenv",
    "putenv",
    "unsetenv",
    "clearenv",
    "clock_gettime",
    "__clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    "clock",
    "times",
    "ftime",
    "pthread_create",
    "pthread_detach",
    "thrd_create",
    "write",
    "pwrite",
    "pwrite64",
    "writev",
    "read",
    "pread",
    "close",
    "dup",
    "dup2",
    "dup3",
    // Not `exit`: nvcc's host-side stand-ins for __device__ functions call it, so every
    // library with a __device__ helper imports it; the source rules forbid calling it.
    "fcntl",
    "ioctl",
    "_exit",
    "_Exit",
    "quick_exit",
    "at_quick_exit",
    "signal",
    "sigaction",
    "raise",
    "kill",
    "tgkill",
    "ptrace",
    "prctl",
    "setpgid",
    "setsid",
    "mmap",
    "mmap64",
    "munmap",
    "mprotect",
    "mremap",
    "madvise",
    "sbrk",
    "brk",
    // CUDA runtime calls the source rules forbid (see cuda_source_rules.cpp for why).
    "cudaStreamCreate",
    "cudaStreamCreateWithFlags",
    "cudaStreamCreateWithPriority",
    "cudaStreamAddCallback",
    "cudaLaunchHostFunc",
    "cudaStreamAttachMemAsync",
    "cudaMallocHost",
    "cudaHostAlloc",
    "cudaHostRegister",
    "cudaHostGetDevicePointer",
    "cudaMallocManaged",
    "cudaMemPrefetchAsync",
    "cudaDeviceReset",
    "cudaSetDevice",
    "cudaSetDeviceFlags",
    "cudaSetValidDevices",
    "cudaThreadExit",
    "cudaDeviceSetLimit",
};

struct Prefix {
  std::string_view prefix;
  std::string_view why;
};

const std::vector<Prefix> kForbiddenPrefixes = {
    {"cublas", "cuBLAS"},
    {"cudnn", "cuDNN"},
    {"cufft", "cuFFT"},
    {"curand", "cuRAND"},
    {"cusparse", "cuSPARSE"},
    {"cusolver", "cuSOLVER"},
    {"cutensor", "cuTENSOR"},
    {"nvrtc", "NVRTC"},
    {"nvJitLink", "nvJitLink"},
    {"cblas_", "BLAS"},
    {"sgemm", "BLAS"},
    {"dgemm", "BLAS"},
    {"mkl_", "MKL"},
    {"openblas", "BLAS"},
    {"_ZN2at", "libtorch"},
    {"_ZN3c10", "libtorch"},
    {"_ZN5torch", "libtorch"},
    {"_ZN6thrust", "Thrust"},
    {"_ZN3cub", "CUB"},
    {"cudaStreamBeginCapture", "stream capture"},
    {"cudaGraph", "CUDA graphs"},
    {"cudaEvent", "events (the harness owns the clock)"},
    {"cudaIpc", "IPC handles"},
    {"cudaProfiler", "the profiler"},
    {"cudaMemcpyFromSymbol", "device-to-host copies"},
    {"cudaMemcpyPeer", "peer copies"},
    {"cudaMemcpyFromArray", "device-to-host copies"},
    {"_ZNSt6thread", "host threads"},
    {"_ZNSt7jthread", "host threads"},
    {"_ZSt5async", "host threads"},
    {"_ZNSt6chrono", "host clocks"},
    {"_ZNSt10filesystem", "files"},
    {"_ZNSt14basic_ifstream", "files"},
    {"_ZNSt14basic_ofstream", "files"},
    {"_ZNSt13basic_fstream", "files"},
    {"_ZNSt13basic_filebuf", "files"},
};

// Names the runner, the C library or the CUDA runtime own: defining one (even hidden) is an
// attempt to interpose on the harness (its clock, its allocator, its copies, its events).
const std::set<std::string, std::less<>> kCudaLibcNames = {
    "clock_gettime",  "__clock_gettime",
    "gettimeofday",   "time",
    "clock",          "nanosleep",
    "malloc",         "free",
    "calloc",         "realloc",
    "posix_memalign", "aligned_alloc",
    "memalign",       "memcpy",
    "memmove",        "memset",
    "memcmp",         "strlen",
    "strcmp",         "printf",
    "fprintf",        "puts",
    "write",          "read",
    "open",           "close",
    "exit",           "_exit",
    "abort",          "dlopen",
    "dlsym",          "__libc_start_main",
    "qsort",          "fork",
    "execve",         "socket",
    "syscall",
};

// cudaMalloc, cuLaunchKernel, ...: the runtime's and the driver's plain C names.
bool is_cuda_api_name(std::string_view s) {
  if (starts_with(s, "cuda") && s.size() > 4 && std::isupper(static_cast<unsigned char>(s[4])))
    return true;
  return starts_with(s, "cu") && s.size() > 2 && std::isupper(static_cast<unsigned char>(s[2]));
}

}  // namespace

std::optional<std::string> check_cuda_symbols(const SymbolTables& t) {
  for (const auto& s : parse_nm(t.exported)) {
    if (s.name == "evk_forward") continue;
    if (is_weak_std_instance(s)) continue;
    if (kCudaLibcNames.count(s.name) || is_cuda_api_name(s.name))
      return fmt::format(
          "the library defines the library symbol `{}`: kernels must not "
          "replace C library or CUDA runtime functions",
          s.name);
    return fmt::format(
        "the library exports `{}`: only evk_forward may be exported (make "
        "helpers and kernels static or put them in an anonymous namespace)",
        s.name);
  }
  for (const auto& s : parse_nm(t.defined))
    if (kCudaLibcNames.count(s.name) || is_cuda_api_name(s.name))
      return fmt::format(
          "the library defines the library symbol `{}`: kernels must not "
          "replace C library or CUDA runtime functions",
          s.name);
  for (const auto& s : parse_nm(t.imported)) {
    if (kForbiddenImports.count(s.name))
      return fmt::format(
          "the library calls `{}`, which kernels may not use (no extra streams, "
          "host memory, host threads, files, processes, network or clocks; the "
          "work runs on the default stream)",
          s.name);
    if (starts_with(s.name, "cu") && !starts_with(s.name, "cuda") && is_cuda_api_name(s.name))
      return fmt::format(
          "the library calls the CUDA driver API `{}`: use the runtime API and "
          "<<<>>> launches",
          s.name);
    for (const auto& p : kForbiddenPrefixes)
      if (starts_with(s.name, p.prefix))
        return fmt::format(
            "the library calls `{}` ({}), which kernels may not use: write the "
            "kernel yourself",
            s.name, p.why);
  }
  return std::nullopt;
}

}  // namespace evk
