#include "backends/opencl/opencl_source_rules.h"

#include <fmt/format.h>

#include <cctype>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "backends/cpu/source_rules.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/preprocessed.h"
#include "backends/source_scan.h"

namespace evk {
namespace {

// A TokenRule whose token ends with '(' matches only a call (the name followed by '(').
// Host code sets up buffers and launches; everything that would let it read or write tensor
// memory, or compute on the CPU, is out.
const std::vector<TokenRule> kHostForbidden = {
    {"data", "host code may not touch tensor memory (wrap tensors in evk_cl::Buffer)"},
    {"float",
     "host code may not compute (floating-point values belong in the OpenCL kernels; "
     "pass scalars as cl_float)"},
    {"double", "host code may not compute (use the OpenCL kernels; pass scalars as cl_double)"},
    {"half", "host code may not compute"},
    {"_Float16", "host code may not compute"},
    {"__fp16", "host code may not compute"},
    {"__bf16", "host code may not compute"},
    {"for",
     "host code may not loop (a loop in host code could compute results: loop inside "
     "the kernels; launch counts are fixed)"},
    {"while", "host code may not loop (loop inside the kernels)"},
    {"do", "host code may not loop (loop inside the kernels)"},
    {"goto", "host code may not loop (loop inside the kernels)"},
    {"reinterpret_cast", "host code may not reinterpret memory"},
    {"bit_cast", "host code may not reinterpret memory"},
    {"launder", "host code may not reinterpret memory"},
    {"union", "host code may not reinterpret memory"},
    {"memcpy", "host code may not copy tensor memory"},
    {"memmove", "host code may not copy tensor memory"},
    {"memset", "host code may not write tensor memory"},
    {"copy(", "host code may not copy tensor memory"},
    {"copy_n(", "host code may not copy tensor memory"},
    {"copy_backward(", "host code may not copy tensor memory"},
    {"fill(", "host code may not write tensor memory"},
    {"fill_n(", "host code may not write tensor memory"},
    {"transform(", "host code may not compute"},
    {"for_each(", "host code may not compute"},
    {"accumulate(", "host code may not compute"},
    {"reduce(", "host code may not compute"},
    {"inner_product(", "host code may not compute"},
    {"generate(", "host code may not compute"},
    {"iota(", "host code may not compute"},
    {"__builtin_*", "compiler builtins in host code"},
    {"omp_*", "OpenMP in host code (the OpenCL device has the threads)"},
    {"clBuildProgram", "building programs yourself (evk_cl::runtime builds the R\"evk_cl( string)"},
    {"clCompileProgram",
     "building programs yourself (evk_cl::runtime builds the R\"evk_cl( string)"},
    {"clLinkProgram", "building programs yourself (evk_cl::runtime builds the R\"evk_cl( string)"},
    {"clCreateProgramWithSource",
     "building programs yourself (evk_cl::runtime builds the R\"evk_cl( string)"},
    {"clCreateProgramWithBinary", "loading prebuilt programs"},
    {"clCreateProgramWithIL", "loading prebuilt programs"},
    {"clCreateProgramWithBuiltInKernels", "vendor built-in kernels"},
    {"clEnqueueNativeKernel", "native kernels run host code on the device's threads"},
    {"clEnqueueReadBuffer", "host-side access to buffers (evk_cl::finish makes outputs visible)"},
    {"clEnqueueReadBufferRect", "host-side access to buffers"},
    {"clEnqueueWriteBuffer", "host-side access to buffers"},
    {"clEnqueueWriteBufferRect", "host-side access to buffers"},
    {"clEnqueueMapBuffer", "host-side access to buffers"},
    {"clEnqueueMapImage", "host-side access to buffers"},
    {"clEnqueueFillBuffer", "filling outputs from the host"},
    {"clEnqueueSVM*", "shared virtual memory from the host"},
    {"clSVM*", "shared virtual memory"},
    {"clSetEventCallback", "callbacks run host code on the runtime's threads"},
    {"clSetMemObjectDestructorCallback", "callbacks run host code on the runtime's threads"},
    {"clSetProgramReleaseCallback", "callbacks run host code on the runtime's threads"},
    {"clblas*", "clBLAS (write the kernel yourself)"},
    {"clBLAS*", "clBLAS (write the kernel yourself)"},
    {"CLBlast*", "CLBlast (write the kernel yourself)"},
    {"clblast*", "CLBlast (write the kernel yourself)"},
    {"clblasSgemm", "clBLAS (write the kernel yourself)"},
};

const std::set<std::string, std::less<>> kHostIncludes = {
    "evokernel/opencl.h",
    "evokernel/kernel_abi.h",
    "cstddef",
    "cstdint",
    "climits",
    "stddef.h",
    "stdint.h",
    "limits.h",
};

constexpr std::string_view kHostIncludesText =
    "host code may include only \"evokernel/opencl.h\" (which brings the ABI and <CL/cl.h>), "
    "<cstddef>, <cstdint> and <climits>";

std::optional<std::string> scan(const std::string& code, const std::vector<TokenRule>& rules,
                                const std::string& where, int line_offset) {
  return scan_identifiers(
      code, [&](std::string_view tok, size_t i, size_t j) -> std::optional<std::string> {
        for (const auto& r : rules) {
          bool hit = token_matches(r.token, tok);
          if (hit && r.token.back() == '(') {
            size_t k = j;
            while (k < code.size() && std::isspace(static_cast<unsigned char>(code[k]))) ++k;
            hit = k < code.size() && code[k] == '(';
          }
          if (hit)
            return fmt::format("line {}: `{}` is not allowed in {}: {}",
                               line_of(code, i) + line_offset, tok, where, r.why);
        }
        return std::nullopt;
      });
}

// Preprocessor lines of `code` (comments blanked): (line, directive, rest).
struct Directive {
  int line;
  std::string name, rest;
};
std::vector<Directive> directives(const std::string& code) {
  std::vector<Directive> out;
  for (const DirectiveLine& dl : directive_lines(code)) {
    size_t e = dl.name;
    while (e < dl.text.size() && is_ident(dl.text[e])) ++e;
    out.push_back({dl.line, dl.text.substr(dl.name, e - dl.name), dl.text.substr(e)});
  }
  return out;
}

std::optional<std::string> check_kernel(const OpenClSource& s) {
  std::string code = blank_comments_and_strings(s.kernel, false);
  int off = s.first_line - 1;
  for (const auto& d : directives(code))
    if (d.name == "include" || d.name == "import" || d.name == "embed" || d.name == "include_next")
      return fmt::format(
          "line {}: #{} is not allowed in the OpenCL program: it would read files of "
          "the verifying machine; write everything in the R\"evk_cl( string",
          d.line + off, d.name);
  static const std::vector<TokenRule> kKernelForbidden = {
      {"printf", "kernels must not print"},
      {"asm", "inline assembly"},
      {"__asm", "inline assembly"},
      {"__asm__", "inline assembly"},
  };
  return scan(blank_comments_and_strings(s.kernel, true), kKernelForbidden, "the OpenCL program",
              off);
}

std::optional<std::string> check_host(const std::string& host) {
  std::string no_comments = blank_comments_and_strings(host, false);
  for (const auto& d : directives(no_comments)) {
    if (d.name == "pragma")
      return fmt::format(
          "line {}: #pragma is not allowed in host code: the OpenCL kernels do the "
          "work (no OpenMP on the host)",
          d.line);
    if (d.name == "include") {
      size_t open = d.rest.find_first_of("<\"");
      size_t close = open == std::string::npos ? open : d.rest.find_first_of(">\"", open + 1);
      std::string header = open == std::string::npos || close == std::string::npos
                               ? ""
                               : d.rest.substr(open + 1, close - open - 1);
      if (!kHostIncludes.count(header))
        return fmt::format(
            "line {}: #include <{}> is not allowed: host code may include only "
            "\"evokernel/opencl.h\" (which brings the ABI and <CL/cl.h>), "
            "<cstddef>, <cstdint> and <climits>",
            d.line, header);
    } else if (d.name == "include_next" || d.name == "import" || d.name == "embed") {
      return fmt::format("line {}: #{} is not allowed: use #include \"evokernel/opencl.h\"", d.line,
                         d.name);
    }
  }
  std::string code = blank_comments_and_strings(host, true);
  if (size_t p = code.find("##"); p != std::string::npos)
    return fmt::format("line {}: token pasting (##) is not allowed in host code", line_of(code, p));
  if (auto bad = scan(code, kHostForbidden, "host code", 0)) return bad;
  // Pointer casts would reach tensor memory without naming `data` (e.g. through a structured
  // binding of an evk_tensor): no cast to a pointer type, no void pointers.
  static const std::regex kPtrCast(
      R"(\(\s*(const\s+)?[A-Za-z_][A-Za-z0-9_:]*(\s+const)?\s*\*+\s*(const\s*)?\))");
  static const std::regex kCppPtrCast(R"(_cast\s*<[^>]*\*)");
  static const std::regex kVoidPtr(R"(\bvoid\s*\*)");
  for (const auto* re : {&kPtrCast, &kCppPtrCast, &kVoidPtr}) {
    std::smatch m;
    if (std::regex_search(code, m, *re))
      return fmt::format(
          "line {}: `{}` is not allowed in host code: host code may not cast to "
          "pointers or use void pointers (it may not touch tensor memory)",
          line_of(code, static_cast<size_t>(m.position(0))), m.str(0));
  }
  // Assembly, counters and load-time attributes are judged on the preprocessed file
  // (check_opencl_source); calls, on the library's imports.
  return std::nullopt;
}

}  // namespace

std::optional<OpenClSource> split_opencl_source(const std::string& src, std::string* why) {
  size_t opens = count_occurrences(src, kOpenClOpen), closes = count_occurrences(src, kOpenClClose);
  if (opens != 1 || closes != 1) {
    if (why)
      *why = fmt::format(
          "the file must hold exactly one OpenCL program as a raw string "
          "R\"evk_cl( ... )evk_cl\" (found {} openings and {} ends): the verifier "
          "builds that string, and evk_cl::runtime must be given it",
          opens, closes);
    return std::nullopt;
  }
  size_t b = src.find(kOpenClOpen) + std::string(kOpenClOpen).size();
  size_t e = src.find(kOpenClClose);
  if (e < b) {
    if (why) *why = "the end )evk_cl\" comes before the opening R\"evk_cl(";
    return std::nullopt;
  }
  OpenClSource s;
  s.kernel = src.substr(b, e - b);
  s.first_line = line_of(src, b);
  s.host = src;
  for (size_t k = b; k < e; ++k)
    if (s.host[k] != '\n') s.host[k] = ' ';
  return s;
}

std::optional<std::string> check_opencl_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  std::string why;
  auto s = split_opencl_source(src, &why);
  if (!s) return why;
  if (auto bad = check_kernel(*s)) return bad;
  if (auto bad = check_host(s->host)) return bad;
  // What the compiler sees of the host file: its includes however spelled (%:, line
  // continuations, macros), assembly and load-time attributes.
  PreprocessSpec spec;
  spec.argv = OpenClBackend::preprocess_argv();
  PreprocessOutcome pp = preprocess_candidate(src, spec);
  if (pp.refusal) return pp.refusal;
  if (!pp.source) return std::nullopt;  // a preprocessor error: the compile reports it (the
                                        // include lines were checked on the text above)
  return check_preprocessed_cxx(*pp.source, kHostIncludes, kHostIncludesText);
}

}  // namespace evk
