// A built library's symbol tables as nm prints them, and their parsing: every backend's
// symbol rules (gate 1, after compiling) judge the same three tables the same way, so reading
// and parsing them lives here and each backend keeps only its lists of forbidden names.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace evk {

struct SymbolTables {
  std::string exported;  // `nm -D --defined-only` output
  std::string imported;  // `nm -D --undefined-only` output
  std::string defined;   // `nm --defined-only` output (local symbols too)
};

// The three tables of `lib`. Throws Error when nm fails (an empty table is not a failure).
SymbolTables read_symbol_tables(const std::filesystem::path& lib);

struct NmSymbol {
  char type;
  std::string name;  // version suffix (@GLIBC_..., @libcudart.so.13) removed
};

// The symbols of one nm table; lines without a one-letter type are skipped.
std::vector<NmSymbol> parse_nm(const std::string& text);

// A weak instance of a std:: (or __gnu_cxx::) template, or a function-local static inside one
// (std::to_string's digit table), that g++ exports whatever the visibility flags say: not the
// candidate's doing, so not an extra export.
bool is_weak_std_instance(const NmSymbol& s);

}  // namespace evk
