#include "backends/cuda/ptxas_report.h"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>
#include <vector>

#include "backends/import_rules.h"

namespace evk {
namespace {

struct KernelReport {
  std::string name, arch;
  long registers = -1, smem = 0, stack = 0, spill_stores = 0, spill_loads = 0;
};

long number_before(const std::string& line, const std::regex& re) {
  std::smatch m;
  return std::regex_search(line, m, re) ? std::atol(m[1].str().c_str()) : 0;
}

}  // namespace

std::string summarize_ptxas(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex regs(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex stack(R"((\d+) bytes stack frame)");
  static const std::regex stores(R"((\d+) bytes spill stores)");
  static const std::regex loads(R"((\d+) bytes spill loads)");
  std::vector<KernelReport> kernels;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      kernels.push_back({demangle(m[1].str()), m[2].str()});
      continue;
    }
    if (kernels.empty()) continue;
    KernelReport& k = kernels.back();
    if (line.find("stack frame") != std::string::npos) {
      k.stack = number_before(line, stack);
      k.spill_stores = number_before(line, stores);
      k.spill_loads = number_before(line, loads);
    } else if (std::regex_search(line, m, regs)) {
      k.registers = std::atol(m[1].str().c_str());
      k.smem = number_before(line, smem);
    }
  }
  std::string out;
  for (const auto& k : kernels) {
    std::string spills = k.spill_stores || k.spill_loads
                             ? fmt::format(
                                   "SPILLS {} B stores / {} B loads (too many registers: "
                                   "smaller tiles or fewer live values)",
                                   k.spill_stores, k.spill_loads)
                             : "no spills";
    out += fmt::format("{} [{}]: {} registers, {} B smem, {} B stack, {}\n", k.name, k.arch,
                       k.registers, k.smem, k.stack, spills);
  }
  return out;
}

}  // namespace evk
