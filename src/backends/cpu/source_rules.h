// Static anti-hack rules on a CPU candidate's source text (gate 1, before compiling).
// Comments and string/char literals are blanked first (newlines kept, so line numbers hold),
// then: every #include must be on the whitelist, and no forbidden identifier may appear.
#pragma once
#include <optional>
#include <string>

namespace evk {

// Blanks comments (and, when `strings` is true, string and character literals, raw strings
// included) with spaces, keeping every newline.
std::string blank_comments_and_strings(const std::string& src, bool strings);

// nullopt when clean; else "line N: <construct> is not allowed: <why>".
std::optional<std::string> check_cpu_source(const std::string& src);

}  // namespace evk
