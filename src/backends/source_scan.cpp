#include "backends/source_scan.h"

#include <fmt/format.h>

#include <cctype>
#include <sstream>

namespace evk {
namespace {

// Spaces over out[from, to), newlines kept, so that lines and offsets stay where they were.
void blank_range(std::string& out, size_t from, size_t to) {
  for (size_t k = from; k < to && k < out.size(); ++k)
    if (out[k] != '\n') out[k] = ' ';
}

}  // namespace

std::string blank_comments_and_strings(const std::string& s, bool strings) {
  std::string out = s;
  auto blank = [&](size_t from, size_t to) { blank_range(out, from, to); };
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

std::vector<DirectiveLine> directive_lines(const std::string& code) {
  std::vector<DirectiveLine> out;
  std::istringstream in(code);
  std::string line;
  for (int ln = 1; std::getline(in, line); ++ln) {
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line[p] != '#') continue;
    size_t d = line.find_first_not_of(" \t", p + 1);
    if (d == std::string::npos) continue;
    out.push_back({ln, line, d});
  }
  return out;
}

std::optional<std::string> check_include_lines(const std::string& no_comments,
                                               const std::set<std::string, std::less<>>& allowed,
                                               std::string_view allowed_text) {
  for (const DirectiveLine& dl : directive_lines(no_comments)) {
    const std::string& line = dl.text;
    const int ln = dl.line;
    const size_t d = dl.name;
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

namespace evk {
namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The end of the pp-number starting at `i` ([lex.ppnumber]: digits, letters, '.', digit
// separators between digits or letters, and signs after e E p P).
size_t pp_number_end(const std::string& s, size_t i) {
  size_t n = s.size(), k = i + 1;
  while (k < n) {
    char c = s[k];
    if ((c == '+' || c == '-') && (s[k - 1] == 'e' || s[k - 1] == 'E' || s[k - 1] == 'p' ||
                                   s[k - 1] == 'P'))
      ++k;
    else if (is_ident(c) || c == '.')
      ++k;
    else if (c == '\'' && k + 1 < n && is_ident(s[k + 1]))
      k += 2;
    else
      break;
  }
  return k;
}

// Whether the identifier s[b, e) is a string or character literal's encoding prefix.
bool is_literal_prefix(std::string_view p) {
  for (std::string_view q : {"u8", "u", "U", "L", "R", "u8R", "uR", "UR", "LR"})
    if (p == q) return true;
  return false;
}

}  // namespace

std::string blank_preprocessed_literals(const std::string& s) {
  std::string out = s;
  auto blank = [&](size_t from, size_t to) { blank_range(out, from, to); };
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]))) {
      size_t e = pp_number_end(s, i);
      blank(i, e);
      i = e;
    } else if (is_ident(c)) {
      size_t e = i;
      while (e < n && is_ident(s[e])) ++e;
      std::string_view word(s.data() + i, e - i);
      if (e < n && (s[e] == '"' || s[e] == '\'') && is_literal_prefix(word)) {
        bool raw = word.back() == 'R' && s[e] == '"';
        size_t end;
        if (raw) {
          size_t paren = s.find('(', e + 1);
          std::string close =
              paren == std::string::npos ? "" : ")" + s.substr(e + 1, paren - e - 1) + "\"";
          size_t f = paren == std::string::npos ? std::string::npos : s.find(close, paren);
          end = f == std::string::npos ? n : f + close.size();
        } else {
          end = e + 1;
          while (end < n && s[end] != s[e] && s[end] != '\n') end += s[end] == '\\' ? 2 : 1;
          end = std::min(n, end + 1);
        }
        blank(e, end);
        i = end;
      } else {
        i = e;
      }
    } else if (c == '"' || c == '\'') {
      size_t e = i + 1;
      while (e < n && s[e] != c && s[e] != '\n') e += s[e] == '\\' ? 2 : 1;
      e = std::min(n, e + 1);
      blank(i, e);
      i = e;
    } else if (i + 1 < n && ((c == '<' && s[i + 1] == ':' && !(i + 2 < n && s[i + 2] == ':')) ||
                             (c == ':' && s[i + 1] == '>') || (c == '<' && s[i + 1] == '%') ||
                             (c == '%' && s[i + 1] == '>'))) {
      out[i] = c == '<' ? (s[i + 1] == ':' ? '[' : '{') : (c == ':' ? ']' : '}');
      out[i + 1] = ' ';
      i += 2;
    } else {
      ++i;
    }
  }
  return out;
}

namespace {

std::string_view normalize_attribute(std::string_view a) {
  if (a.size() > 4 && a.substr(0, 2) == "__" && a.substr(a.size() - 2) == "__")
    return a.substr(2, a.size() - 4);
  return a;
}

size_t skip_space(const std::string& s, size_t k) {
  while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
  return k;
}

// Attribute names inside the list that starts at `k` (just after "((" or "[["), up to the
// list's closing bracket at depth zero; `close` is ')' or ']'.
std::optional<std::string> scan_attribute_list(const std::string& s, size_t k, char close,
                                               const AttributeVisitor& visit) {
  int depth = 0;
  bool expect_name = true;
  for (; k < s.size(); ++k) {
    char c = s[k];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0 && c == close) return std::nullopt;
      --depth;
    } else if (depth == 0 && c == ',') {
      expect_name = true;
    } else if (depth == 0 && is_ident(c)) {
      size_t e = k;
      while (e < s.size() && is_ident(s[e])) ++e;
      std::string_view word(s.data() + k, e - k);
      size_t after = skip_space(s, e);
      bool scoped = s.compare(after, 2, "::") == 0;
      bool using_prefix = word == "using";
      if (expect_name && !scoped && !using_prefix)
        if (auto bad = visit(normalize_attribute(word), k)) return bad;
      // After "ns::" or "using ns:" the next word is the name.
      if (!scoped && !using_prefix) expect_name = false;
      if (using_prefix) {
        size_t colon = s.find(':', e);
        if (colon == std::string::npos) return std::nullopt;
        k = colon;
        expect_name = true;
        continue;
      }
      k = scoped ? after + 1 : e - 1;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> scan_attributes(const std::string& s, const AttributeVisitor& visit) {
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '[') {
      size_t b = skip_space(s, k + 1);
      if (b < s.size() && s[b] == '[')
        if (auto bad = scan_attribute_list(s, b + 1, ']', visit)) return bad;
      continue;
    }
    if (!is_ident(s[k]) || (k > 0 && is_ident(s[k - 1]))) continue;
    size_t e = k;
    while (e < s.size() && is_ident(s[e])) ++e;
    std::string_view word(s.data() + k, e - k);
    if (word == "__attribute__" || word == "__attribute") {
      size_t p1 = skip_space(s, e);
      size_t p2 = p1 < s.size() && s[p1] == '(' ? skip_space(s, p1 + 1) : s.size();
      if (p2 < s.size() && s[p2] == '(')
        if (auto bad = scan_attribute_list(s, p2 + 1, ')', visit)) return bad;
    }
    k = e - 1;
  }
  return std::nullopt;
}

}  // namespace evk
