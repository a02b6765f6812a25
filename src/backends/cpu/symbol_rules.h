// Anti-hack rules on a built CPU library's symbol tables (gate 1, after compiling): what it
// exports, what it defines, and what it imports. These catch what the source rules miss when
// names are built by token pasting or declared by hand.
#pragma once
#include <optional>
#include <string>

#include "backends/symbol_tables.h"

namespace evk {

// nullopt when the library exports only evk_forward (plus weak std:: template instances),
// defines no libc/libm/libgomp symbol, and imports nothing forbidden.
std::optional<std::string> check_cpu_symbols(const SymbolTables& t);

}  // namespace evk
