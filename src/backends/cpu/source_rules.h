// Static anti-hack rules on a CPU candidate's source (gate 1, before compiling), judged on what
// the compiler sees: the translation unit after `g++ -E` with the compile's flags
// (backends/preprocessed.h). The rules are early feedback, not the security boundary (that is
// the runner's jail; the library's imports are checked after compiling): they ban calls and
// attributes, never spellings, so a helper or variable may be named write, signal or exit.
//  - every file the candidate includes directly is a standard header that cannot reach the
//    operating system, <omp.h>, an x86 intrinsics header or "evokernel/kernel_abi.h";
//  - no inline assembly, no reading of the time stamp or performance counters;
//  - no attribute that runs code at load or exit or moves code or symbols (constructor,
//    destructor, init_priority, section, ifunc, target_clones, alias, weakref, symver).
//    Visibility is left to the export check on the built library: EVK_EXPORT expands to it.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/preprocessed.h"
#include "backends/source_scan.h"

namespace evk {

// nullopt when clean; else "line N: <construct> is not allowed: <why>". Runs the preprocessor.
std::optional<std::string> check_cpu_source(const std::string& src);

// The rules above on an already preprocessed source (for the other C++-hosted backends and
// tests): `allowed` headers by the name the search folders give them, `allowed_text` the
// feedback's list of them.
std::optional<std::string> check_preprocessed_cxx(const PreprocessedSource& pp,
                                                  const std::set<std::string, std::less<>>& allowed,
                                                  std::string_view allowed_text);

}  // namespace evk
