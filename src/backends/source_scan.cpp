#include "backends/source_scan.h"

#include <fmt/format.h>

#include <cctype>
#include <sstream>

namespace evk {

std::string blank_comments_and_strings(const std::string& s, bool strings) {
  std::string out = s;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  size_t i = 0, n = s.size();
  while (i < n) {
    if (s.compare(i, 2, "//") == 0) {
      size_t e = s.find('\n', i);
      e = e == std::string::npos ? n : e;
      blank(i, e);
      i = e;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (s[i] == 'R' && i + 1 < n && s[i + 1] == '"' &&
               (i == 0 ||
                !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
      size_t paren = s.find('(', i + 2);
      if (paren == std::string::npos) break;
      std::string close = ")" + s.substr(i + 2, paren - i - 2) + "\"";
      size_t e = s.find(close, paren);
      e = e == std::string::npos ? n : e + close.size();
      if (strings) blank(i + 1, e);
      i = e;
    } else if (s[i] == '"' || s[i] == '\'') {
      char q = s[i];
      size_t e = i + 1;
      while (e < n && s[e] != q && s[e] != '\n') e += s[e] == '\\' ? 2 : 1;
      e = std::min(n, e + 1);
      if (strings) blank(i + 1, e - 1);
      i = e;
    } else {
      ++i;
    }
  }
  return out;
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

int line_of(const std::string& s, size_t pos) {
  int line = 1;
  for (size_t k = 0; k < pos && k < s.size(); ++k) line += s[k] == '\n';
  return line;
}

size_t count_occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

bool token_matches(std::string_view rule_token, std::string_view tok) {
  char last = rule_token.back();
  std::string_view t =
      last == '*' || last == '(' ? rule_token.substr(0, rule_token.size() - 1) : rule_token;
  return last == '*' ? tok.substr(0, t.size()) == t : tok == t;
}

bool followed_by_scope(const std::string& code, size_t end) {
  size_t k = end;
  while (k < code.size() && (code[k] == ' ' || code[k] == '\t')) ++k;
  return code.compare(k, 2, "::") == 0;
}

std::optional<std::string> scan_identifiers(const std::string& code, const IdentVisitor& visit) {
  size_t i = 0, n = code.size();
  while (i < n) {
    if (!is_ident(code[i]) || std::isdigit(static_cast<unsigned char>(code[i]))) {
      if (std::isdigit(static_cast<unsigned char>(code[i])))
        while (i < n && (is_ident(code[i]) || code[i] == '.')) ++i;
      else
        ++i;
      continue;
    }
    size_t j = i;
    while (j < n && is_ident(code[j])) ++j;
    if (auto bad = visit(std::string_view(code.data() + i, j - i), i, j)) return bad;
    i = j;
  }
  return std::nullopt;
}

size_t find_split_identifier(const std::string& code) {
  for (size_t k = 0; k + 1 < code.size(); ++k)
    if (code[k] == '\\' && code[k + 1] == '\n' && k > 0 && is_ident(code[k - 1]) &&
        k + 2 < code.size() && is_ident(code[k + 2]))
      return k;
  return std::string::npos;
}

std::optional<std::string> check_include_lines(const std::string& no_comments,
                                               const std::set<std::string, std::less<>>& allowed,
                                               std::string_view allowed_text) {
  std::istringstream in(no_comments);
  std::string line;
  for (int ln = 1; std::getline(in, line); ++ln) {
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line[p] != '#') continue;
    size_t d = line.find_first_not_of(" \t", p + 1);
    if (d == std::string::npos) continue;
    std::string_view rest(line.c_str() + d);
    for (std::string_view bad : {"include_next", "import", "embed"})
      if (rest.substr(0, bad.size()) == bad)
        return fmt::format("line {}: #{} is not allowed: use #include of a whitelisted header", ln,
                           bad);
    if (rest.substr(0, 7) != "include") continue;
    size_t open = line.find_first_of("<\"", d + 7);
    size_t close = open == std::string::npos ? open : line.find_first_of(">\"", open + 1);
    if (open == std::string::npos || close == std::string::npos)
      return fmt::format("line {}: #include must name a header in <> or \"\" (no macros)", ln);
    std::string header = line.substr(open + 1, close - open - 1);
    if (!allowed.count(header))
      return fmt::format("line {}: #include <{}> is not allowed: {}", ln, header, allowed_text);
  }
  return std::nullopt;
}

}  // namespace evk
