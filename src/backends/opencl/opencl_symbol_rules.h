// Anti-hack rules on a built OpenCL candidate library's symbol tables (gate 1, after
// compiling): the cpu backend's rules (export only evk_forward, define no C library symbol,
// import nothing that reaches files, processes, network, clocks, threads or BLAS), plus the
// OpenCL calls that would run host code or prebuilt code instead of the candidate's kernels.
// The OpenCL API itself (libOpenCL) is an allowed import.
#pragma once
#include <optional>

#include "backends/cpu/symbol_rules.h"

namespace evk {

std::optional<std::string> check_opencl_symbols(const SymbolTables& t);

}  // namespace evk
