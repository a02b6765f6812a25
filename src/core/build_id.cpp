#include "core/build_id.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/hash.h"

namespace evk {
namespace {

std::string hex(const unsigned char* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += {d[p[i] >> 4], d[p[i] & 15]};
  return s;
}

bool read_at(std::ifstream& in, uint64_t off, void* dst, size_t n) {
  in.seekg(static_cast<std::streamoff>(off));
  return static_cast<bool>(in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n)));
}

// The NT_GNU_BUILD_ID note of a 64-bit little-endian ELF file; "" when there is none.
std::string gnu_build_id(std::ifstream& in) {
  Elf64_Ehdr eh;
  if (!read_at(in, 0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 4096)
    return "";
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  if (!read_at(in, eh.e_shoff, sh.data(), sh.size() * sizeof(Elf64_Shdr))) return "";
  for (const auto& s : sh) {
    if (s.sh_type != SHT_NOTE || s.sh_size > (1 << 16)) continue;
    std::vector<unsigned char> notes(s.sh_size);
    if (!read_at(in, s.sh_offset, notes.data(), notes.size())) continue;
    for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= notes.size();) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + off, sizeof nh);
      size_t name = off + sizeof nh, desc = name + ((nh.n_namesz + 3) & ~3u);
      size_t next = desc + ((nh.n_descsz + 3) & ~3u);
      if (next > notes.size()) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          std::memcmp(notes.data() + name, "GNU", 4) == 0)
        return hex(notes.data() + desc, nh.n_descsz);
      off = next;
    }
  }
  return "";
}

}  // namespace

std::string build_identity(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  if (std::string id = gnu_build_id(in); !id.empty()) return "build-id:" + id;
  in.clear();
  in.seekg(0);
  return "sha256:" + sha256_hex(std::string(std::istreambuf_iterator<char>(in), {}));
}

}  // namespace evk
