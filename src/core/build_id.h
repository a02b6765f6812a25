// What identifies a program's build, cheaply: the GNU build id the linker writes into an ELF
// file (a hash of its contents, read from the section headers in a few reads), else, for a
// file without one, the sha256 of its bytes.
#pragma once
#include <filesystem>
#include <string>

namespace evk {

// "build-id:<hex>" or "sha256:<hex>"; "" when the file cannot be read.
std::string build_identity(const std::filesystem::path& file);

}  // namespace evk
