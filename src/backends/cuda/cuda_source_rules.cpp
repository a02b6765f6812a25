#include "backends/cuda/cuda_source_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <string_view>
#include <vector>

#include "backends/source_scan.h"

namespace evk {
namespace {

// C/C++ math, algorithm and container headers, the CUDA runtime and device-side headers, and
// the ABI. Nothing that reaches vendor libraries (cuBLAS, cuDNN, CUB, Thrust), the driver API,
// files, processes, threads or clocks.
const std::set<std::string, std::less<>> kIncludes = {
    "evokernel/kernel_abi.h",
    "algorithm",
    "array",
    "cassert",
    "cfloat",
    "cinttypes",
    "climits",
    "cmath",
    "complex",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cstring",
    "functional",
    "initializer_list",
    "iterator",
    "limits",
    "memory",
    "new",
    "numeric",
    "optional",
    "tuple",
    "type_traits",
    "utility",
    "vector",
    "array",
    "assert.h",
    "float.h",
    "inttypes.h",
    "limits.h",
    "math.h",
    "stdbool.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "device_launch_parameters.h",
    "vector_types.h",
    "vector_functions.h",
    "math_constants.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "cooperative_groups/memcpy_async.h",
    "mma.h",
    "cuda_pipeline.h",
};

constexpr std::string_view kVendor = "vendor libraries (write the kernel yourself)";
constexpr std::string_view kStreams =
    "work outside the default stream (launch every kernel on stream 0; the harness "
    "synchronises and times the default stream)";
constexpr std::string_view kClock = "timers and events (the harness owns the clock)";
constexpr std::string_view kHostMem =
    "host-visible memory (the computation must happen on the device, in device memory)";
constexpr std::string_view kToHost =
    "copying device data to the host (the result must be computed on the device)";
constexpr std::string_view kDevice = "changing the device or its context (the harness owns them)";

const std::vector<TokenRule> kForbidden = {
    // What the CPU rules forbid too: assembly, system calls, libraries, files, network,
    // processes, environment, host timers, host threads, memory mapping, signals, exit, load-
    // time code, symbol tricks. Inline PTX is refused with host assembly: the rules cannot
    // tell them apart; intrinsics (__shfl_sync, __ldg, wmma, __pipeline_memcpy_async) cover it.
    {"asm", "inline assembly"},
    {"__asm__", "inline assembly"},
    {"__asm", "inline assembly"},
    {"syscall", "raw system calls"},
    {"__rdtsc", "reading the time stamp counter"},
    {"__rdtscp", "reading the time stamp counter"},
    {"_rdtsc", "reading the time stamp counter"},
    {"dlopen", "loading libraries"},
    {"dlsym", "looking up symbols"},
    {"dlvsym", "looking up symbols"},
    {"fopen", "file access"},
    {"freopen", "file access"},
    {"fdopen", "file access"},
    {"open", "file access"},
    {"openat", "file access"},
    {"creat", "file access"},
    {"ifstream", "file access"},
    {"ofstream", "file access"},
    {"fstream", "file access"},
    {"filesystem", "file access"},
    {"unlink", "file access"},
    {"mkdir", "file access"},
    {"chmod", "file access"},
    {"fwrite", "file access"},
    {"write", "raw I/O"},
    {"pwrite", "raw I/O"},
    {"close", "raw I/O"},
    {"dup", "raw I/O"},
    {"dup2", "raw I/O"},
    {"socket", "network access"},
    {"connect", "network access"},
    {"gethostbyname", "network access"},
    {"getaddrinfo", "network access"},
    {"fork", "creating processes"},
    {"vfork", "creating processes"},
    {"clone", "creating processes"},
    {"execl", "running programs"},
    {"execlp", "running programs"},
    {"execle", "running programs"},
    {"execv", "running programs"},
    {"execvp", "running programs"},
    {"execve", "running programs"},
    {"execvpe", "running programs"},
    {"posix_spawn", "running programs"},
    {"system", "running programs"},
    {"popen", "running programs"},
    {"getenv", "reading the environment"},
    {"secure_getenv", "reading the environment"},
    {"setenv", "changing the environment"},
    {"putenv", "changing the environment"},
    {"environ", "reading the environment"},
    {"clock_gettime", kClock},
    {"gettimeofday", kClock},
    {"chrono", kClock},
    {"clock", kClock},
    {"clock64", kClock},
    {"__globaltimer", kClock},
    {"cudaEvent*", kClock},
    {"pthread_*", "host threads (the work belongs on the GPU)"},
    {"thrd_create", "host threads (the work belongs on the GPU)"},
    {"jthread", "host threads (the work belongs on the GPU)"},
    {"async", "host threads (the work belongs on the GPU)"},
    {"mmap", "mapping memory"},
    {"munmap", "mapping memory"},
    {"mprotect", "changing memory protection"},
    {"signal", "signal handlers"},
    {"sigaction", "signal handlers"},
    {"ptrace", "tracing processes"},
    {"kill", "signalling processes"},
    {"prctl", "process control"},
    {"exit", "ending the process"},
    {"_exit", "ending the process"},
    {"_Exit", "ending the process"},
    {"quick_exit", "ending the process"},
    {"constructor", "code that runs when the library loads"},
    {"destructor", "code that runs when the library unloads"},
    {"init_priority", "code that runs when the library loads"},
    {"ifunc", "code that runs when the library loads"},
    {"section", "custom sections"},
    {"alias", "symbol aliases"},
    {"visibility", "changing symbol visibility (use EVK_EXPORT)"},
    {"torch", "libtorch (write the kernel yourself)"},
    {"at", "libtorch's at:: namespace"},
    {"c10", "libtorch (write the kernel yourself)"},
    {"cblas_*", kVendor},
    {"sgemm", kVendor},
    {"dgemm", kVendor},
    {"mkl_*", kVendor},
    // CUDA vendor libraries: a call into them is not a kernel of one's own.
    {"cublas*", kVendor},
    {"cudnn*", kVendor},
    {"cufft*", kVendor},
    {"curand*", kVendor},
    {"cusparse*", kVendor},
    {"cusolver*", kVendor},
    {"cutensor*", kVendor},
    {"nvrtc*", kVendor},
    {"nvJitLink*", kVendor},
    {"thrust", kVendor},
    {"cub", kVendor},
    {"cutlass", kVendor},
    {"cute", kVendor},
    // Work the harness would not wait for or time: other streams, graphs, host callbacks.
    {"cudaStreamCreate*", kStreams},
    {"cudaStreamPerThread", kStreams},
    {"cudaStreamNonBlocking", kStreams},
    {"cudaStreamBeginCapture*", kStreams},
    {"cudaStreamAddCallback", kStreams},
    {"cudaLaunchHostFunc", kStreams},
    {"cudaGraph*", kStreams},
    {"cudaStreamAttachMemAsync", kStreams},
    // Memory the host can read or write while kernels run, and copies back to the host.
    {"cudaMallocHost", kHostMem},
    {"cudaHostAlloc", kHostMem},
    {"cudaHostRegister", kHostMem},
    {"cudaHostGetDevicePointer", kHostMem},
    {"cudaMallocManaged", kHostMem},
    {"__managed__", kHostMem},
    {"cudaMemPrefetchAsync", kHostMem},
    {"cudaMemcpyDeviceToHost", kToHost},
    {"cudaMemcpyDefault", kToHost},
    {"cudaMemcpyHostToHost", kToHost},
    {"cudaMemcpyFromSymbol*", kToHost},
    {"cudaMemcpyPeer*", kToHost},
    {"cudaMemcpyFromArray*", kToHost},
    // The harness's device and context.
    {"cudaDeviceReset", kDevice},
    {"cudaSetDevice", kDevice},
    {"cudaSetDeviceFlags", kDevice},
    {"cudaSetValidDevices", kDevice},
    {"cudaIpc*", kDevice},
    {"cudaProfiler*", kDevice},
    {"cudaThreadExit", kDevice},
    {"cudaDeviceSetLimit", kDevice},
};

// cudaMemcpy calls must say which way they copy; only these directions are allowed.
const std::set<std::string, std::less<>> kCheckedCopies = {
    "cudaMemcpy",   "cudaMemcpyAsync",   "cudaMemcpy2D",       "cudaMemcpy2DAsync",
    "cudaMemcpy3D", "cudaMemcpy3DAsync", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync"};

// The text between the '(' at `open` and its matching ')', or npos when unbalanced.
size_t matching_paren(const std::string& code, size_t open) {
  int depth = 0;
  for (size_t k = open; k < code.size(); ++k) {
    if (code[k] == '(') ++depth;
    if (code[k] == ')' && --depth == 0) return k;
  }
  return std::string::npos;
}

bool has_token(std::string_view text, std::string_view tok) {
  for (size_t p = text.find(tok); p != std::string_view::npos; p = text.find(tok, p + 1)) {
    bool left = p == 0 || !is_ident(text[p - 1]);
    bool right = p + tok.size() >= text.size() || !is_ident(text[p + tok.size()]);
    if (left && right) return true;
  }
  return false;
}

// A cudaMemcpy* call must be a direct call whose arguments name cudaMemcpyHostToDevice or
// cudaMemcpyDeviceToDevice (the ToSymbol forms copy host to device by definition). A numeric
// or computed kind could be device-to-host, so it is refused.
std::optional<std::string> check_copy(const std::string& code, size_t begin, size_t end,
                                      std::string_view name) {
  size_t k = code.find_first_not_of(" \t\n", end);
  if (k == std::string::npos || code[k] != '(')
    return fmt::format(
        "line {}: `{}` must be called directly (no function pointers or "
        "macros around it)",
        line_of(code, begin), name);
  if (name.find("ToSymbol") != std::string_view::npos) return std::nullopt;
  size_t close = matching_paren(code, k);
  std::string_view args = close == std::string::npos ? std::string_view(code).substr(k)
                                                     : std::string_view(code).substr(k, close - k);
  if (has_token(args, "cudaMemcpyHostToDevice") || has_token(args, "cudaMemcpyDeviceToDevice"))
    return std::nullopt;
  // A forbidden direction named outright is reported by its own rule, which says more.
  for (std::string_view kind :
       {"cudaMemcpyDeviceToHost", "cudaMemcpyDefault", "cudaMemcpyHostToHost"})
    if (has_token(args, kind)) return std::nullopt;
  return fmt::format(
      "line {}: `{}` must name its direction as cudaMemcpyHostToDevice or "
      "cudaMemcpyDeviceToDevice in the call: copies to the host are not allowed "
      "(the result must be computed on the device)",
      line_of(code, begin), name);
}

// Namespaces only (at::, torch::, cub::, cute::): these are also common variable names.
bool namespace_only(std::string_view token) {
  for (std::string_view ns : {"at", "torch", "c10", "cub", "cute", "thrust", "cutlass"})
    if (token == ns) return true;
  return false;
}

std::optional<std::string> check_token(const std::string& code, std::string_view tok, size_t i,
                                       size_t j) {
  // The driver API (cuMemcpyDtoH, cuLaunchKernel, cuCtxCreate, ...) bypasses every runtime rule.
  if (tok.size() > 2 && tok[0] == 'c' && tok[1] == 'u' &&
      std::isupper(static_cast<unsigned char>(tok[2])))
    return fmt::format(
        "line {}: `{}` is not allowed in a kernel: the CUDA driver API (use the "
        "runtime API and <<<>>> launches)",
        line_of(code, i), tok);
  if (kCheckedCopies.count(tok))
    if (auto bad = check_copy(code, i, j, tok)) return bad;
  for (const auto& r : kForbidden) {
    bool hit = token_matches(r.token, tok);
    if (hit && namespace_only(r.token)) hit = followed_by_scope(code, j);
    if (hit)
      return fmt::format("line {}: `{}` is not allowed in a kernel: {}", line_of(code, i), tok,
                         r.why);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_cuda_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  std::string no_comments = blank_comments_and_strings(src, false);
  if (auto bad = check_include_lines(
          no_comments, kIncludes,
          "only the C/C++ math, algorithm and container headers, the CUDA runtime and device "
          "headers (cuda_runtime.h, cuda_fp16.h, cuda_bf16.h, cooperative_groups.h, mma.h, "
          "cuda_pipeline.h, math_constants.h) and \"evokernel/kernel_abi.h\" may be included: "
          "no cuBLAS, cuDNN, CUB, Thrust or libtorch"))
    return bad;
  std::string code = blank_comments_and_strings(src, true);
  // Line continuations and token pasting would let a forbidden identifier be assembled from
  // harmless pieces; the first of them in the file is reported.
  size_t split = find_split_identifier(code), paste = code.find("##");
  if (split != std::string::npos && split < paste)
    return fmt::format("line {}: a backslash-newline inside an identifier is not allowed",
                       line_of(code, split));
  if (paste != std::string::npos)
    return fmt::format(
        "line {}: token pasting (##) is not allowed: it can assemble "
        "forbidden names",
        line_of(code, paste));
  return scan_identifiers(
      code, [&](std::string_view tok, size_t i, size_t j) { return check_token(code, tok, i, j); });
}

}  // namespace evk
