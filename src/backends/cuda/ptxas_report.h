// The ptxas resource report (`-Xptxas -v`) condensed into one line per kernel, kept as compile
// feedback: registers, spills, shared memory and stack are what limit occupancy and speed, and
// they are known without running anything.
#pragma once
#include <string>

namespace evk {

// From nvcc's stderr, e.g.
//   ptxas info    : Compiling entry function '_Z4reluPKfPfl' for 'sm_90'
//   ptxas info    : Function properties for _Z4reluPKfPfl
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]
// to "relu(float const*, float*, long) [sm_90]: 12 registers, 1024 B smem, 0 B stack, no spills".
// Kernels in order of appearance, one per line; empty when the log has no report.
std::string summarize_ptxas(const std::string& log);

}  // namespace evk
