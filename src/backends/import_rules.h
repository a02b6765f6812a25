// The import ALLOWLIST of a kernel library (gate 1, after compiling): every symbol the dynamic
// loader will bind must come from a library kernels may use. Whole libraries: libm (and its
// vector variants, libmvec), OpenMP (libgomp, less its clocks) and libgcc_s; from libc and
// libstdc++ only what a kernel needs (memory and string functions, printf-style output, math,
// the C++ runtime for exceptions, function-local statics, strings and containers, iostream
// output). Anything else is named in the feedback. This is early feedback, not the boundary:
// a kernel that walks libc's symbol table by hand through the link maps can still reach any
// function, and the runner's jail is what stops it then.
#pragma once
#include <optional>
#include <set>
#include <string>

#include "backends/elf_image.h"

namespace evk {

// nullopt when every import of `img` is allowed, also counting every import from one of
// `extra_libraries` (e.g. "libOpenCL.so.1"); else feedback naming the first other import.
std::optional<std::string> check_kernel_imports(const ElfImage& img,
                                                const std::set<std::string, std::less<>>& extra_libraries = {});

// `name` demangled when it is a C++ name, else itself (for feedback).
std::string demangle(const std::string& name);

}  // namespace evk
