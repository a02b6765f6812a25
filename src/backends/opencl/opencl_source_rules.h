// Static anti-hack rules on an OpenCL candidate's source text (gate 1, before compiling).
// A candidate is one C++ file: host code plus exactly one raw string R"evk_cl( ... )evk_cl"
// holding the OpenCL C program (knowledge/opencl/guide.md). The rules:
//  - the OpenCL C program may not #include anything (the compiler would read files of the
//    verifying machine) nor print;
//  - the host code may include only the ABI, the helper and a few basic headers, and may not
//    touch tensor memory or compute: no `data` member, no floating-point types, no pointer
//    casts or void pointers, no copy/fill algorithms, no loops (for, while, do, goto), no
//    preprocessor token pasting or #pragma, no building programs itself, no native kernels,
//    reads, writes or maps of buffers, no clBLAS/CLBlast;
//  - and, on the preprocessed file (backends/preprocessed.h), the include allowlist however
//    the directive is spelled, no assembly and no load-time attributes. Calls (files,
//    processes, network, clocks, BLAS) are judged on the library's imports, an allowlist.
#pragma once
#include <optional>
#include <string>

namespace evk {

struct OpenClSource {
  std::string kernel;  // the OpenCL C program (the raw string's content)
  int first_line = 1;  // line of kernel.cpp where the program's first line is
  std::string host;    // the file with the program's text blanked (newlines kept)
};

inline constexpr const char* kOpenClOpen = "R\"evk_cl(";
inline constexpr const char* kOpenClClose = ")evk_cl\"";

// The program and the host code, or feedback when the file does not hold exactly one
// R"evk_cl( ... )evk_cl" string.
std::optional<OpenClSource> split_opencl_source(const std::string& src, std::string* why);

// nullopt when clean; else "line N: <construct> is not allowed ...: <why>".
std::optional<std::string> check_opencl_source(const std::string& src);

}  // namespace evk
