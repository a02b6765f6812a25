// Text scanning shared by every backend's source rules (gate 1, before compiling): the rules
// differ per backend, but how a source is blanked, walked identifier by identifier and
// located by line must be the same everywhere, or a trick caught by one backend's scanner
// would slip through another's.
#pragma once
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace evk {

// Blanks comments (and, when `strings` is true, string and character literals, raw strings
// included) with spaces, keeping every newline.
std::string blank_comments_and_strings(const std::string& src, bool strings);

bool is_ident(char c);
// 1-based line of byte `pos`.
int line_of(const std::string& s, size_t pos);
// Occurrences of `what` in `s`, overlapping ones included.
size_t count_occurrences(const std::string& s, const std::string& what);

// A forbidden identifier: a whole identifier, or a prefix when it ends with '*'. (A trailing
// '(' is ignored here: the opencl rules use it to mean "only when called".)
struct TokenRule {
  std::string_view token;
  std::string_view why;
};
bool token_matches(std::string_view rule_token, std::string_view tok);

// Whether "::" follows position `end` (spaces and tabs skipped): `at` and `torch` are
// forbidden as namespaces only, since they are common variable names.
bool followed_by_scope(const std::string& code, size_t end);

// Calls `visit(token, begin, end)` for every identifier of `code` in order, skipping numbers
// whole (1e5f is not an identifier); the first answer that is not nullopt is returned.
using IdentVisitor =
    std::function<std::optional<std::string>(std::string_view tok, size_t begin, size_t end)>;
std::optional<std::string> scan_identifiers(const std::string& code, const IdentVisitor& visit);

// Where a backslash-newline splits an identifier (a forbidden name assembled over two lines),
// or npos.
size_t find_split_identifier(const std::string& code);

// The preprocessor lines of `code` (comments already blanked): the 1-based line number, the
// line's text and where the directive's name starts (past '#' and spaces or tabs). A lone '#'
// is no directive.
struct DirectiveLine {
  int line;
  std::string text;
  size_t name;
};
std::vector<DirectiveLine> directive_lines(const std::string& code);

// nullopt when every #include of `no_comments` names a header in `allowed` and no
// #include_next, #import or #embed appears; else "line N: ...", ending with `allowed_text`
// for a header not allowed.
std::optional<std::string> check_include_lines(const std::string& no_comments,
                                               const std::set<std::string, std::less<>>& allowed,
                                               std::string_view allowed_text);

}  // namespace evk

namespace evk {

// Preprocessed text (no comments, no line continuations) with string and character literals
// blanked, and numbers too, so that a digit separator (1'000) does not start a "character
// literal" that hides what follows; digraphs (<: :> <% %>) are rewritten as [ ] { } so that
// attribute brackets look the same however they are spelled. Length and newlines are kept.
std::string blank_preprocessed_literals(const std::string& code);

// Calls `visit(name, pos)` for every attribute name in `code` (blanked as above): the names in
// __attribute__((a, b(x))) and in [[gnu::a, b]] / [[using gnu: a]], with leading and trailing
// "__" removed (__constructor__ -> constructor) and the namespace dropped.
using AttributeVisitor = std::function<std::optional<std::string>(std::string_view name, size_t pos)>;
std::optional<std::string> scan_attributes(const std::string& code, const AttributeVisitor& visit);

}  // namespace evk
