#include "backends/elf_image.h"

#include <elf.h>

#include <cstring>
#include <map>

#include "backends/symbol_tables.h"
#include "core/error.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

class Reader {
 public:
  Reader(std::string bytes, std::string name) : b_(std::move(bytes)), name_(std::move(name)) {}
  template <typename T>
  T at(uint64_t off) const {
    if (off > b_.size() || b_.size() - off < sizeof(T)) fail("truncated");
    T v;
    std::memcpy(&v, b_.data() + off, sizeof(T));
    return v;
  }
  std::string str(uint64_t table_off, uint64_t table_size, uint64_t idx) const {
    if (idx >= table_size || table_off + idx >= b_.size()) fail("bad string index");
    const char* p = b_.data() + table_off + idx;
    size_t max = std::min<uint64_t>(table_size - idx, b_.size() - table_off - idx);
    return std::string(p, strnlen(p, max));
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error("cannot read the ELF library " + name_ + ": " + why);
  }

 private:
  std::string b_;
  std::string name_;
};

char nm_type(const Elf64_Sym& sym) {
  unsigned bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
  if (sym.st_shndx == SHN_UNDEF) return bind == STB_WEAK ? 'w' : 'U';
  if (bind == STB_GNU_UNIQUE) return 'u';
  if (bind == STB_WEAK) return type == STT_OBJECT ? 'V' : 'W';
  char c = type == STT_FUNC || type == STT_GNU_IFUNC ? 'T' : 'D';
  return bind == STB_LOCAL ? static_cast<char>(c - 'A' + 'a') : c;
}

ElfSymbol to_symbol(const Elf64_Sym& sym, std::string name) {
  ElfSymbol s;
  s.name = std::move(name);
  s.size = sym.st_size;
  s.function = ELF64_ST_TYPE(sym.st_info) == STT_FUNC;
  s.defined = sym.st_shndx != SHN_UNDEF;
  s.nm_type = nm_type(sym);
  return s;
}

}  // namespace

SymbolTables nm_tables(const ElfImage& img) {
  SymbolTables t;
  for (const auto& s : img.exports) t.exported += "0 " + std::string(1, s.nm_type) + " " + s.name + "\n";
  for (const auto& i : img.imports) t.imported += (i.weak ? "w " : "U ") + i.name + "\n";
  for (const auto& s : img.symbols)
    if (s.defined) t.defined += "0 " + std::string(1, s.nm_type) + " " + s.name + "\n";
  return t;
}

ElfImage read_elf_image(const fs::path& lib) {
  Reader r(read_file(lib), lib.string());
  auto eh = r.at<Elf64_Ehdr>(0);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB)
    r.fail("not a 64-bit little-endian ELF file");
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (size_t i = 0; i < sh.size(); ++i)
    sh[i] = r.at<Elf64_Shdr>(eh.e_shoff + i * sizeof(Elf64_Shdr));
  if (eh.e_shstrndx >= sh.size()) r.fail("no section names");
  const Elf64_Shdr& names = sh[eh.e_shstrndx];
  auto section_name = [&](const Elf64_Shdr& s) {
    return r.str(names.sh_offset, names.sh_size, s.sh_name);
  };

  ElfImage img;
  for (size_t i = 0; i < eh.e_phnum; ++i)
    if (r.at<Elf64_Phdr>(eh.e_phoff + i * sizeof(Elf64_Phdr)).p_type == PT_TLS) img.has_tls = true;

  const Elf64_Shdr *dynsym = nullptr, *versym = nullptr, *verneed = nullptr, *symtab = nullptr;
  for (const auto& s : sh) {
    std::string n = section_name(s);
    if (n == ".init_array" || n == ".preinit_array" || n == ".ctors") img.init_entries += s.sh_size / 8;
    if (n == ".fini_array" || n == ".dtors") img.fini_entries += s.sh_size / 8;
    if (s.sh_type == SHT_DYNSYM) dynsym = &s;
    if (s.sh_type == SHT_GNU_versym) versym = &s;
    if (s.sh_type == SHT_GNU_verneed) verneed = &s;
    if (s.sh_type == SHT_SYMTAB) symtab = &s;
  }

  // Version index -> the library file that version is needed from.
  std::map<uint16_t, std::string> version_file;
  if (verneed && verneed->sh_link < sh.size()) {
    const Elf64_Shdr& strs = sh[verneed->sh_link];
    uint64_t off = verneed->sh_offset;
    for (uint64_t n = 0; n < verneed->sh_info; ++n) {
      auto vn = r.at<Elf64_Verneed>(off);
      std::string file = r.str(strs.sh_offset, strs.sh_size, vn.vn_file);
      uint64_t aux = off + vn.vn_aux;
      for (uint16_t a = 0; a < vn.vn_cnt; ++a) {
        auto va = r.at<Elf64_Vernaux>(aux);
        version_file[va.vna_other] = file;
        if (!va.vna_next) break;
        aux += va.vna_next;
      }
      if (!vn.vn_next) break;
      off += vn.vn_next;
    }
  }

  if (dynsym && dynsym->sh_link < sh.size()) {
    const Elf64_Shdr& strs = sh[dynsym->sh_link];
    uint64_t count = dynsym->sh_size / sizeof(Elf64_Sym);
    for (uint64_t i = 1; i < count; ++i) {
      auto sym = r.at<Elf64_Sym>(dynsym->sh_offset + i * sizeof(Elf64_Sym));
      if (sym.st_shndx != SHN_UNDEF) {
        std::string name = r.str(strs.sh_offset, strs.sh_size, sym.st_name);
        if (!name.empty()) img.exports.push_back(to_symbol(sym, std::move(name)));
        continue;
      }
      ElfImport imp;
      imp.name = r.str(strs.sh_offset, strs.sh_size, sym.st_name);
      if (imp.name.empty()) continue;
      imp.weak = ELF64_ST_BIND(sym.st_info) == STB_WEAK;
      if (versym) {
        uint16_t v = r.at<uint16_t>(versym->sh_offset + i * 2) & 0x7fff;
        if (auto it = version_file.find(v); it != version_file.end()) imp.library = it->second;
      }
      img.imports.push_back(std::move(imp));
    }
  }

  if (symtab && symtab->sh_link < sh.size()) {
    const Elf64_Shdr& strs = sh[symtab->sh_link];
    uint64_t count = symtab->sh_size / sizeof(Elf64_Sym);
    for (uint64_t i = 1; i < count; ++i) {
      auto sym = r.at<Elf64_Sym>(symtab->sh_offset + i * sizeof(Elf64_Sym));
      ElfSymbol s = to_symbol(sym, r.str(strs.sh_offset, strs.sh_size, sym.st_name));
      // Section and file symbols are not what nm --defined-only lists by name.
      unsigned type = ELF64_ST_TYPE(sym.st_info);
      if (!s.name.empty() && type != STT_SECTION && type != STT_FILE) img.symbols.push_back(std::move(s));
    }
  }
  return img;
}

}  // namespace evk
