#include "backends/instruction_scan.h"

#include <fmt/format.h>

#include <sstream>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/process.h"

namespace evk {
namespace {

struct Banned {
  const char* mnemonic;
  const char* operand;  // "" for any
  const char* why;
};

const Banned kBanned[] = {
    {"syscall", "", "a raw system call"},
    {"sysenter", "", "a raw system call"},
    {"int", "$0x80", "a raw system call"},
    {"wrpkru", "", "a change of the memory protection keys"},
    {"rdtsc", "", "a read of the time-stamp counter"},
    {"rdtscp", "", "a read of the time-stamp counter"},
};

// "    1139:\tsyscall" -> the mnemonic and its operands; nullopt for other lines.
std::optional<std::pair<std::string, std::string>> instruction(const std::string& line) {
  size_t colon = line.find(":\t");
  if (colon == std::string::npos) return std::nullopt;
  std::istringstream in(line.substr(colon + 2));
  std::string m, ops;
  in >> m >> ops;
  if (m.empty()) return std::nullopt;
  return std::make_pair(m, ops);
}

}  // namespace

std::optional<std::string> check_instructions(const std::filesystem::path& library) {
  ProcessOptions o;
  o.timeout_s = 60;
  o.output_cap = 64u << 20;
  ProcessResult r = run_process({"objdump", "-d", "--no-show-raw-insn", library.string()}, o);
  if (!r.ok() || r.out_truncated)
    throw Error("objdump -d " + library.string() + " " + r.describe() + ": " +
                r.err.substr(0, 200));
  std::istringstream in(r.out);
  std::string line, function = "?";
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == ':' && line.find('<') != std::string::npos) {
      function = line.substr(line.find('<') + 1);
      function = function.substr(0, function.find('>'));
      continue;
    }
    auto ins = instruction(line);
    if (!ins) continue;
    for (const auto& b : kBanned)
      if (ins->first == b.mnemonic && (!*b.operand || ins->second == b.operand))
        return fmt::format(
            "the compiled kernel contains the instruction `{}{}{}` in {} ({}): a kernel never "
            "needs it (inline assembly, however spelled, is not allowed; use the backend's API "
            "and the C++ standard library)",
            b.mnemonic, *b.operand ? " " : "", b.operand, function, b.why);
  }
  return std::nullopt;
}

}  // namespace evk
