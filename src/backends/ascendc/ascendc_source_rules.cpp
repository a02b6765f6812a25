#include "backends/ascendc/ascendc_source_rules.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "backends/cpu/source_rules.h"
#include "backends/host_compiler.h"
#include "backends/preprocessed.h"
#include "backends/source_scan.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;
namespace {

const std::set<std::string, std::less<>> kIncludes = {
    "kernel_operator.h",
    "lib/matmul_intf.h",
    "tiling/tiling_api.h",
    "evokernel/kernel_abi.h",
    // The host side of a CANN operator project and of a kernel-invocation program.
    "register/op_def_registry.h",
    "register/tilingdata_base.h",
    "tiling/platform/platform_ascendc.h",
    "acl/acl.h",
    "algorithm",
    "array",
    "cassert",
    "cfloat",
    "cinttypes",
    "climits",
    "cmath",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cstring",
    "initializer_list",
    "limits",
    "numeric",
    "type_traits",
    "utility",
    "vector",
    "assert.h",
    "float.h",
    "limits.h",
    "math.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
};

constexpr std::string_view kIncludesText =
    "include \"kernel_operator.h\" (and \"lib/matmul_intf.h\", \"tiling/tiling_api.h\" for "
    "Matmul; \"register/op_def_registry.h\", \"register/tilingdata_base.h\", "
    "\"tiling/platform/platform_ascendc.h\", \"acl/acl.h\" on the host side); only the "
    "C/C++ math and algorithm headers may be added";

// The macros the knowledge headers define, each with the identifiers of its body: a token
// such as evk_acl_* in the candidate's preprocessed rows is the header's when a macro on the
// same source line emits it (ACLRT_LAUNCH_KERNEL, the tiling macros), the candidate's own
// otherwise (a name pasted with ##, a macro of its own).
using MacroBodies = std::map<std::string, std::set<std::string>, std::less<>>;

void read_macros(const fs::path& file, MacroBodies& out) {
  std::ifstream in(file);
  std::string line, text;
  while (std::getline(in, line)) {
    text += line;
    if (!line.empty() && line.back() == '\\') {
      text.back() = ' ';
      continue;
    }
    size_t k = text.find_first_not_of(" \t");
    if (k != std::string::npos && text.compare(k, 1, "#") == 0) {
      std::istringstream d(text.substr(k + 1));
      std::string word, name;
      d >> word;
      if (word == "define" && (d >> name)) {
        std::string macro = name.substr(0, name.find('('));
        std::string body;
        std::getline(d, body);
        body = name.substr(macro.size()) + " " + body;
        auto& ids = out[macro];
        scan_identifiers(body,
                         [&](std::string_view tok, size_t, size_t) -> std::optional<std::string> {
                           ids.insert(std::string(tok));
                           return std::nullopt;
                         });
      }
    }
    text.clear();
  }
}

const MacroBodies& header_macros() {
  static const MacroBodies macros = [] {
    MacroBodies m;
    fs::path dir = data_root() / "knowledge" / "ascendc";
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
      if (e.is_regular_file() && e.path().extension() == ".h") read_macros(e.path(), m);
    return m;
  }();
  return macros;
}

// Whether a header macro used on `raw_line` emits identifier `tok`.
bool from_header_macro(std::string_view tok, const std::string& raw_line) {
  const MacroBodies& macros = header_macros();
  bool found = false;
  scan_identifiers(raw_line,
                   [&](std::string_view id, size_t, size_t) -> std::optional<std::string> {
                     auto it = macros.find(id);
                     if (it != macros.end() && it->second.count(std::string(tok))) found = true;
                     return std::nullopt;
                   });
  return found;
}

std::string source_line(const std::vector<std::string>& lines, int n) {
  return n >= 1 && static_cast<size_t>(n) <= lines.size() ? lines[static_cast<size_t>(n - 1)] : "";
}

// The candidate's own rows (not the header's macros): no evk_acl_* name (the emulator's entry
// points: the Ascend C API is the way in) and no `.t_` / `->t_` (the API objects' handle).
std::optional<std::string> check_api_bypass(const PreprocessedSource& pp,
                                            const std::vector<std::string>& raw) {
  for (size_t r = 0; r < pp.rows.size(); ++r) {
    std::string code = blank_preprocessed_literals(pp.rows[r]);
    int line = r < pp.row_line.size() ? pp.row_line[r] : 0;
    auto bad = scan_identifiers(
        code, [&](std::string_view tok, size_t i, size_t) -> std::optional<std::string> {
          bool entry = tok.rfind("evk_acl_", 0) == 0;
          size_t b = i;
          while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t')) --b;
          bool handle = tok == "t_" && ((b >= 1 && code[b - 1] == '.') ||
                                        (b >= 2 && code.compare(b - 2, 2, "->") == 0));
          if ((!entry && !handle) || from_header_macro(tok, source_line(raw, line)))
            return std::nullopt;
          return entry ? fmt::format(
                             "line {}: `{}` is the emulator's internal entry point, not "
                             "allowed in an Ascend C kernel (however the name is spelled or "
                             "pasted): use the Ascend C API",
                             line, tok)
                       : fmt::format(
                             "line {}: `.t_` is the API object's internal handle: tensors "
                             "are used only through the Ascend C API",
                             line);
        });
    if (bad) return bad;
  }
  return std::nullopt;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

}  // namespace

std::vector<std::string> ascendc_preprocess_argv() {
  std::vector<std::string> argv;
  for (auto& a : gxx_library_flags(data_root() / "knowledge" / "ascendc", {"-O2"}))
    if (a != "-shared") argv.push_back(a);
  return argv;
}

std::optional<std::string> check_ascendc_source(const std::string& src) {
  if (src.find_first_not_of(" \t\r\n") == std::string::npos) return "the source is empty";
  PreprocessSpec spec;
  spec.argv = ascendc_preprocess_argv();
  PreprocessOutcome pp = preprocess_candidate(src, spec);
  if (pp.refusal) return pp.refusal;
  // A preprocessor error (a missing header, #error): the compile reports it, unless the text
  // names a header off the allowlist, which says more.
  if (!pp.source)
    return check_include_lines(blank_comments_and_strings(src, false), kIncludes, kIncludesText);
  if (auto bad = check_preprocessed_cxx(*pp.source, kIncludes, kIncludesText)) return bad;
  return check_api_bypass(*pp.source, split_lines(blank_comments_and_strings(src, false)));
}

}  // namespace evk
