#include "backends/cuda/cuda_source_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "backends/cpu/source_rules.h"

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

struct Rule {
  std::string_view token;  // a whole identifier, or a prefix when it ends with '*'
  std::string_view why;
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

const std::vector<Rule> kForbidden = {
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

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

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
        return fmt::format("line {}: #{} is not allowed: use #include of a whitelisted header", ln,
                           bad);
    if (rest.substr(0, 7) != "include") continue;
    size_t open = line.find_first_of("<\"", d + 7);
    size_t close = open == std::string::npos ? open : line.find_first_of(">\"", open + 1);
    if (open == std::string::npos || close == std::string::npos)
      return fmt::format("line {}: #include must name a header in <> or \"\" (no macros)", ln);
    std::string header = line.substr(open + 1, close - open - 1);
    if (!kIncludes.count(header))
      return fmt::format(
          "line {}: #include <{}> is not allowed: only the C/C++ math, algorithm and container "
          "headers, the CUDA runtime and device headers (cuda_runtime.h, cuda_fp16.h, "
          "cuda_bf16.h, cooperative_groups.h, mma.h, cuda_pipeline.h, math_constants.h) and "
          "\"evokernel/kernel_abi.h\" may be included: no cuBLAS, cuDNN, CUB, Thrust or libtorch",
          ln, header);
  }
  return std::nullopt;
}

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

}  // namespace

std::optional<std::string> check_cuda_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  std::string no_comments = blank_comments_and_strings(src, false);
  if (auto bad = check_includes(no_comments)) return bad;
  std::string code = blank_comments_and_strings(src, true);
  // Line continuations and token pasting would let a forbidden identifier be assembled from
  // harmless pieces.
  for (size_t k = 0; k + 1 < code.size(); ++k) {
    if (code[k] == '\\' && code[k + 1] == '\n' && k > 0 && is_ident(code[k - 1]) &&
        k + 2 < code.size() && is_ident(code[k + 2]))
      return fmt::format("line {}: a backslash-newline inside an identifier is not allowed",
                         line_of(code, k));
    if (code[k] == '#' && code[k + 1] == '#')
      return fmt::format(
          "line {}: token pasting (##) is not allowed: it can assemble "
          "forbidden names",
          line_of(code, k));
  }
  size_t i = 0, n = code.size();
  while (i < n) {
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
      bool prefix = r.token.back() == '*';
      std::string_view t = prefix ? r.token.substr(0, r.token.size() - 1) : r.token;
      bool hit = prefix ? tok.substr(0, t.size()) == t : tok == t;
      // Namespaces only (at::, torch::, cub::, cute::): these are also common variable names.
      if (hit && (r.token == "at" || r.token == "torch" || r.token == "c10" || r.token == "cub" ||
                  r.token == "cute" || r.token == "thrust" || r.token == "cutlass")) {
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
