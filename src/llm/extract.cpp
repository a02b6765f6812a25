// extract_code (declared in provider.h): Markdown fenced blocks, CommonMark-style enough for
// model output: a fence is a line whose first non-blank characters (at most 3 spaces in) are
// three or more backticks or tildes; the info string's first word is the tag; the block ends at
// a line holding only a fence of the same character at least as long, or at the end of the text.
#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "llm/provider.h"

namespace evk {
namespace {

struct Fence {
  char ch = 0;
  size_t len = 0;
  std::string_view info;  // what follows the fence on its line
};

// A fence at the start of `line`, if any.
std::optional<Fence> fence_of(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return std::nullopt;
  Fence f;
  f.ch = line[i];
  size_t j = i;
  while (j < line.size() && line[j] == f.ch) ++j;
  f.len = j - i;
  if (f.len < 3) return std::nullopt;
  f.info = line.substr(j);
  if (f.ch == '`' && f.info.find('`') != std::string_view::npos) return std::nullopt;  // inline code
  return f;
}

std::string tag_of(std::string_view info) {
  size_t b = info.find_first_not_of(" \t{.");
  if (b == std::string_view::npos) return "";
  size_t e = info.find_first_of(" \t}\r,", b);
  std::string tag(info.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
  std::transform(tag.begin(), tag.end(), tag.begin(), [](unsigned char c) { return std::tolower(c); });
  return tag;
}

bool is_closing(std::string_view line, const Fence& open) {
  auto f = fence_of(line);
  if (!f || f->ch != open.ch || f->len < open.len) return false;
  return f->info.find_first_not_of(" \t\r") == std::string_view::npos;
}

bool is_kernel_tag(const std::string& t) {
  static const char* tags[] = {"c", "cpp", "c++", "cxx", "cc", "h", "hpp",
                               "cuda", "cu", "opencl", "cl"};
  return std::find_if(std::begin(tags), std::end(tags), [&](const char* x) { return t == x; }) !=
         std::end(tags);
}

struct Block {
  std::string tag, code;
};

std::vector<Block> blocks_of(const std::string& text) {
  std::vector<std::string_view> lines;
  std::string_view rest(text);
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    lines.push_back(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  std::vector<Block> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto open = fence_of(lines[i]);
    if (!open) continue;
    Block b{tag_of(open->info), ""};
    size_t j = i + 1;
    for (; j < lines.size() && !is_closing(lines[j], *open); ++j) {
      std::string_view l = lines[j];
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      b.code.append(l).push_back('\n');
    }
    if (b.code.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(std::move(b));
    i = j;  // continue after the closing fence (or the end)
  }
  return out;
}

// Whether `code` defines evk_forward: the name, a balanced parameter list, then (past an
// optional noexcept) the body's `{`. A call or a declaration is not a definition.
bool defines_entry(const std::string& code) {
  static const std::string kEntry = "evk_forward";
  for (size_t p = code.find(kEntry); p != std::string::npos; p = code.find(kEntry, p + 1)) {
    if (p > 0 && (std::isalnum(static_cast<unsigned char>(code[p - 1])) || code[p - 1] == '_'))
      continue;
    size_t i = code.find_first_not_of(" \t\r\n", p + kEntry.size());
    if (i == std::string::npos || code[i] != '(') continue;
    int depth = 0;
    for (; i < code.size(); ++i) {
      depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    i = code.find_first_not_of(" \t\r\n", i + 1);
    if (i != std::string::npos && code.compare(i, 8, "noexcept") == 0)
      i = code.find_first_not_of(" \t\r\n", i + 8);
    if (i != std::string::npos && code[i] == '{') return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> extract_code(const std::string& reply) {
  // Models asked for one block still send several: the change as a snippet, then the whole
  // file; the file, then a usage example; a draft, then "the corrected version". Every
  // backend's kernel defines evk_forward, so the candidate is the last block that defines it:
  // the model's final word.
  auto rank = [](const Block& b) { return 2 * defines_entry(b.code) + is_kernel_tag(b.tag); };
  const auto blocks = blocks_of(reply);
  const Block* best = nullptr;
  for (const auto& b : blocks)
    if (!best || rank(b) >= rank(*best)) best = &b;
  if (best) return best->code;
  // No fence at all: a model told to answer with code only may send the bare file.
  if (defines_entry(reply)) return reply;
  return std::nullopt;
}

}  // namespace evk
