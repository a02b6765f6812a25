// Anti-hack rules on a built CPU library's symbol tables (gate 1, after compiling): what it
// exports and what it defines. What it imports is checked against an allowlist
// (backends/import_rules.h), and its load-time code against a baseline
// (backends/load_time_rules.h).
#pragma once
#include <optional>
#include <string>

#include "backends/symbol_tables.h"

namespace evk {

// nullopt when the library exports only evk_forward (plus weak std:: template instances) and
// defines no libc/libm/libgomp symbol.
std::optional<std::string> check_cpu_symbols(const SymbolTables& t);

}  // namespace evk
