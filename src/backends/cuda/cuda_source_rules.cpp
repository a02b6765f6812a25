#include "backends/cuda/cuda_source_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <functional>
#include <regex>
#include <set>
#include <string_view>
#include <vector>

#include "backends/cuda/cuda_backend.h"
#include "backends/preprocessed.h"
#include "backends/source_scan.h"

namespace evk {
namespace {

// C/C++ math, algorithm and container headers, the CUDA runtime and device-side headers, and
// the ABI. Nothing that reaches vendor libraries (cuBLAS, cuDNN, CUB, Thrust), the driver API,
// files, processes, threads or clocks.
const std::set<std::string, std::less<>> kCudaIncludes = {
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

const std::vector<TokenRule> kCudaForbidden = {
    // Assembly (inline PTX is refused with host assembly: intrinsics such as __shfl_sync,
    // __ldg, wmma and __pipeline_memcpy_async cover it) and counters. Host calls into the C
    // library (files, processes, network, environment, clocks, threads, signals, exit) are
    // judged on the library's imports, not on spellings: a local may be named write or exit.
    {"asm", "inline assembly"},
    {"__asm__", "inline assembly"},
    {"__asm", "inline assembly"},
    {"__rdtsc", "reading the time stamp counter"},
    {"__rdtscp", "reading the time stamp counter"},
    {"_rdtsc", "reading the time stamp counter"},
    {"__builtin_ia32_rdtsc", "reading the time stamp counter"},
    {"__builtin_ia32_rdtscp", "reading the time stamp counter"},
    {"ifstream", "file access"},
    {"ofstream", "file access"},
    {"fstream", "file access"},
    {"filesystem", "file access"},
    {"chrono", kClock},
    {"clock", kClock},
    {"clock64", kClock},
    {"__globaltimer", kClock},
    {"cudaEvent*", kClock},
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
using LineOf = std::function<int(size_t)>;

std::optional<std::string> check_copy(const std::string& code, size_t begin, size_t end,
                                      std::string_view name, const LineOf& line) {
  size_t k = code.find_first_not_of(" \t\n", end);
  if (k == std::string::npos || code[k] != '(')
    return fmt::format(
        "line {}: `{}` must be called directly (no function pointers or "
        "macros around it)",
        line(begin), name);
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
      line(begin), name);
}

// Namespaces only (at::, torch::, cub::, cute::): these are also common variable names.
bool namespace_only(std::string_view token) {
  for (std::string_view ns : {"at", "torch", "c10", "cub", "cute", "thrust", "cutlass"})
    if (token == ns) return true;
  return false;
}

std::optional<std::string> check_token(const std::string& code, std::string_view tok, size_t i,
                                       size_t j, const LineOf& line) {
  // The driver API (cuMemcpyDtoH, cuLaunchKernel, cuCtxCreate, ...) bypasses every runtime rule.
  if (tok.size() > 2 && tok[0] == 'c' && tok[1] == 'u' &&
      std::isupper(static_cast<unsigned char>(tok[2])))
    return fmt::format(
        "line {}: `{}` is not allowed in a kernel: the CUDA driver API (use the "
        "runtime API and <<<>>> launches)",
        line(i), tok);
  if (kCheckedCopies.count(tok))
    if (auto bad = check_copy(code, i, j, tok, line)) return bad;
  for (const auto& r : kCudaForbidden) {
    bool hit = token_matches(r.token, tok);
    if (hit && namespace_only(r.token)) hit = followed_by_scope(code, j);
    if (hit)
      return fmt::format("line {}: `{}` is not allowed in a kernel: {}", line(i), tok,
                         r.why);
  }
  return std::nullopt;
}

constexpr std::string_view kCudaIncludesText =
    "only the C/C++ math, algorithm and container headers, the CUDA runtime and device "
    "headers (cuda_runtime.h, cuda_fp16.h, cuda_bf16.h, cooperative_groups.h, mma.h, "
    "cuda_pipeline.h, math_constants.h) and \"evokernel/kernel_abi.h\" may be included: "
    "no cuBLAS, cuDNN, CUB, Thrust or libtorch";

constexpr std::string_view kCudaLoadTime =
    "code that runs when the library loads or unloads (use a function-local static for "
    "one-time set-up)";

struct AttributeRule {
  std::string_view name, why;
};
const AttributeRule kCudaForbiddenAttributes[] = {
    {"constructor", kCudaLoadTime},     {"destructor", kCudaLoadTime},
    {"init_priority", kCudaLoadTime},   {"ifunc", "resolvers run when the library loads"},
    {"target_clones", "its resolver runs when the library loads"},
    {"section", "placing code or data in a section of one's choosing"},
    {"alias", "symbol aliases"},    {"weakref", "symbol aliases"},
    {"symver", "symbol versions"},  {"managed", kHostMem},
};

// The rules on one preprocessed pass (host, or device with __CUDA_ARCH__ defined).
std::optional<std::string> check_pass(const PreprocessedSource& pp) {
  for (const auto& inc : pp.includes)
    if (inc.header.empty() || !kCudaIncludes.count(inc.header)) {
      std::string what = inc.header.empty() ? "\"" + inc.path + "\"" : "<" + inc.header + ">";
      return fmt::format("line {}: #include {} is not allowed: {}", inc.line, what, kCudaIncludesText);
    }
  std::string code;
  for (const auto& r : pp.rows) code += r + "\n";
  // cudaStreamPerThread and cudaStreamLegacy are macros, ((cudaStream_t)0x2) and 0x1, by the
  // time the preprocessor is done: a stream handle made from a non-zero number is one of them.
  static const std::regex kStreamHandle(
      R"(\(\s*cudaStream_t\s*\)\s*\(?\s*(0[xX]0*[1-9a-fA-F]|[1-9]))");
  std::smatch m;
  if (std::regex_search(code, m, kStreamHandle)) {
    size_t row = static_cast<size_t>(line_of(code, static_cast<size_t>(m.position(0))) - 1);
    return fmt::format("line {}: `cudaStreamPerThread` (or a stream handle made from a number) "
                       "is not allowed in a kernel: {}",
                       row < pp.row_line.size() ? pp.row_line[row] : 0, kStreams);
  }
  code = blank_preprocessed_literals(code);
  LineOf line = [&](size_t pos) {
    size_t row = static_cast<size_t>(line_of(code, pos) - 1);
    return row < pp.row_line.size() ? pp.row_line[row] : 0;
  };
  if (auto bad = scan_identifiers(code, [&](std::string_view tok, size_t i, size_t j) {
        return check_token(code, tok, i, j, line);
      }))
    return bad;
  return scan_attributes(code, [&](std::string_view name, size_t pos) -> std::optional<std::string> {
    for (const auto& r : kCudaForbiddenAttributes)
      if (name == r.name)
        return fmt::format("line {}: the attribute `{}` is not allowed in a kernel: {}", line(pos),
                           name == "managed" ? "__managed__" : name, r.why);
    return std::nullopt;
  });
}

}  // namespace

std::optional<std::string> check_cuda_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  // Without the toolkit, or where the preprocessor fails (a missing header, #error), the
  // compile reports the error, unless the text names a header off the allowlist.
  auto named_header = [&] {
    return check_include_lines(blank_comments_and_strings(src, false), kCudaIncludes, kCudaIncludesText);
  };
  auto nvcc = CudaBackend::nvcc_path();
  if (!nvcc) return named_header();
  // Both sides of what nvcc compiles: the host pass, and the device pass, where code under
  // #if __CUDA_ARCH__ appears.
  std::string arch = CudaBackend::arch();
  std::string digits;
  for (char c : arch)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  for (bool device : {false, true}) {
    PreprocessSpec spec;
    spec.argv = CudaBackend::preprocess_argv(nvcc->string());
    if (device) spec.argv.push_back("-D__CUDA_ARCH__=" + digits + "0");
    spec.list_includes = {"-Xcompiler", "-H"};
    spec.source_name = "kernel.cu";
    spec.extra_search_dirs = CudaBackend::include_dirs(*nvcc);
    PreprocessOutcome pp = preprocess_candidate(src, spec);
    if (pp.refusal) return pp.refusal;
    if (!pp.source) return named_header();
    if (auto bad = check_pass(*pp.source)) return bad;
  }
  return std::nullopt;
}

}  // namespace evk
