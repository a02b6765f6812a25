// Anti-hack rules on a built CUDA library's symbol tables (gate 1, after compiling). Candidates
// are linked with `-cudart shared`, so every CUDA runtime call stays visible as an import from
// libcudart: these catch what the source rules miss when names are declared by hand.
#pragma once
#include <optional>

#include "backends/cpu/symbol_rules.h"

namespace evk {

// nullopt when the library exports only evk_forward (plus weak std:: template instances),
// defines no libc or CUDA runtime symbol, and imports nothing forbidden: no vendor library
// (cuBLAS, cuDNN, cuFFT, cuRAND, cuSPARSE, cuSOLVER, NVRTC, Thrust/CUB host entry points,
// libtorch), no driver API, no stream/event/graph/host-callback/host-memory/device-to-host
// runtime call, and none of the CPU backend's forbidden imports (files, processes, network,
// clocks, host threads, dlopen, environment, exit, signals, memory mapping).
std::optional<std::string> check_cuda_symbols(const SymbolTables& t);

}  // namespace evk
