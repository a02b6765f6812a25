#include "backends/symbol_tables.h"

#include <sstream>
#include <string_view>

#include "core/error.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::string run_nm(const std::vector<std::string>& flags, const fs::path& lib) {
  std::vector<std::string> argv = {"nm"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(lib.string());
  ProcessOptions o;
  o.timeout_s = 30;
  ProcessResult r = run_process(argv, o);
  // An empty table is reported by nm as "no symbols" with a nonzero status: not an error here.
  if (!r.ok() && r.err.find("no symbols") == std::string::npos)
    throw Error("nm " + lib.string() + " failed: " + r.describe() + " " + r.err);
  return r.out;
}

}  // namespace

SymbolTables read_symbol_tables(const fs::path& lib) {
  SymbolTables t;
  t.exported = run_nm({"-D", "--defined-only"}, lib);
  t.imported = run_nm({"-D", "--undefined-only"}, lib);
  t.defined = run_nm({"--defined-only"}, lib);
  return t;
}

std::vector<NmSymbol> parse_nm(const std::string& text) {
  std::vector<NmSymbol> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<std::string> f;
    for (std::string w; ls >> w;) f.push_back(w);
    if (f.size() < 2 || f[f.size() - 2].size() != 1) continue;
    const std::string& name = f.back();
    out.push_back({f[f.size() - 2][0], name.substr(0, name.find('@'))});
  }
  return out;
}

bool is_weak_std_instance(const NmSymbol& s) {
  bool weak = s.type == 'W' || s.type == 'V' || s.type == 'u';
  std::string_view n = s.name;
  for (std::string_view p :
       {"_ZNSt", "_ZNKSt", "_ZSt", "_ZTISt", "_ZTSSt", "_ZTVSt", "_ZN9__gnu_cxx", "_ZZNSt",
        "_ZZNKSt", "_ZGVZNSt", "_ZGVZNKSt"})
    if (weak && n.starts_with(p)) return true;
  return false;
}

}  // namespace evk
