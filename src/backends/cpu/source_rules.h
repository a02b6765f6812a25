// Static anti-hack rules on a CPU candidate's source text (gate 1, before compiling).
// Comments and string/char literals are blanked first (newlines kept, so line numbers hold),
// then: every #include must be on the whitelist, and no forbidden identifier may appear.
#pragma once
#include <optional>
#include <string>

#include "backends/source_scan.h"

namespace evk {

// nullopt when clean; else "line N: <construct> is not allowed: <why>".
std::optional<std::string> check_cpu_source(const std::string& src);

}  // namespace evk
