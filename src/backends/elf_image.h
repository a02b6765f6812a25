// What the dynamic loader will do with a built library, read from its ELF headers: which
// symbols it imports and from which library each is expected (the symbol versions name the
// file: expf@GLIBC_2.27 comes from libm.so.6), how many load-time and exit-time entries it
// has, and its own symbols with their sizes. nm cannot say which library an import comes
// from; the import allowlist needs exactly that.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace evk {

struct ElfImport {
  std::string name;
  std::string library;  // "libm.so.6"; "" when unversioned (no linked library provides it)
  bool weak = false;
};

struct ElfSymbol {
  std::string name;
  uint64_t size = 0;
  bool function = false;
  bool defined = false;
  char nm_type = '?';  // the letter nm would print: T W V u D B t d ...
};

struct ElfImage {
  std::vector<ElfImport> imports;
  // Pointer-sized entries of .init_array, .fini_array, .preinit_array, .ctors, .dtors.
  uint64_t init_entries = 0, fini_entries = 0;
  bool has_tls = false;          // a PT_TLS segment (thread_local data)
  std::vector<ElfSymbol> symbols;  // .symtab (empty when stripped)
  std::vector<ElfSymbol> exports;  // defined symbols of .dynsym
};

// Throws Error naming the file when it is not a readable 64-bit little-endian ELF.
ElfImage read_elf_image(const std::filesystem::path& lib);

struct SymbolTables;
// The three tables nm would print for the library (backends/symbol_tables.h), from the image:
// the same rules, without three nm processes per candidate.
SymbolTables nm_tables(const ElfImage& img);

}  // namespace evk
