#include "backends/compiler_feedback.h"

#include <fmt/format.h>

#include <optional>
#include <regex>
#include <sstream>
#include <vector>

namespace evk {
namespace fs = std::filesystem;

namespace {

enum class Kind { Error, Warning, Note };

// One diagnostic: its context lines ("In function ..."), its header and the source, caret and
// fix-it lines under it; the notes that follow it belong to it.
struct Diagnostic {
  Kind kind = Kind::Error;
  std::string context, text;
  std::vector<Diagnostic> notes;
};

bool is_ptxas_resource_line(const std::string& line) {
  return line.rfind("ptxas info", 0) == 0 || line.find("bytes stack frame") != std::string::npos;
}

// libstdc++'s std::regex recurses once per character it matches, so a whole line of a
// compiler's output (which echoes a candidate's 1 MB identifier) could overflow the stack:
// the patterns below only ever look at a line's head (ASan found the overflow in
// CompilerFeedback.UnrecognisedOutputIsKeptAndCapped, a 10000-character line).
std::string head(const std::string& line) {
  constexpr size_t kHeadChars = 1024;
  return line.substr(0, kHeadChars);
}

// The kind of a diagnostic header line, or nullopt when the line is none.
std::optional<Kind> header_kind(const std::string& whole) {
  const std::string line = head(whole);
  // gcc/clang: file:line:col: error: ..., file:line: warning: ..., cc1plus: error: ...
  static const std::regex gcc(R"(^[^ ]+?:(?:\d+:)?(?:\d+:)? (fatal error|error|warning|note):.*)");
  // nvcc (EDG front end): file(line): error: ..., file(12): warning #177-D: ...
  static const std::regex nvcc(
      R"(^[^ ]+\(\d+\): (catastrophic error|error|warning|remark)[^:]*:.*)");
  // PoCL's build log (clang inside): error: kernel.cpp:6:32: use of undeclared identifier
  static const std::regex pocl(R"(^(error|warning|note): [^ ]+:\d+:\d+: .*)");
  std::smatch m;
  std::string word;
  if (std::regex_match(line, m, gcc) || std::regex_match(line, m, nvcc) ||
      std::regex_match(line, m, pocl))
    word = m[1];
  else if (whole.find("undefined reference to") != std::string::npos ||
           line.rfind("/usr/bin/ld: ", 0) == 0 || line.rfind("ld: ", 0) == 0)
    word = "error";
  else
    return std::nullopt;
  if (word == "warning" || word == "remark") return Kind::Warning;
  if (word == "note") return Kind::Note;
  return Kind::Error;
}

// Lines that say where the next diagnostic is, not what it is.
bool is_context_line(const std::string& line) {
  static const std::regex ctx(
      R"(^(In file included from |\s+from |[^ ]+: (In |At )|[^ ]+:\d+:\d+:\s+required ).*)");
  return std::regex_match(head(line), ctx);
}

// Counting lines of the compiler's own ("2 errors detected ...", "compilation terminated.").
bool is_summary_line(const std::string& line) {
  static const std::regex sum(
      R"(^(\d+ errors? detected in the compilation of .*|compilation terminated.*|Error limit reached\.))");
  return std::regex_match(head(line), sum);
}

std::vector<Diagnostic> parse(const std::string& log, const FeedbackRule& rule) {
  std::vector<Diagnostic> out;
  std::istringstream in(log);
  std::string line, context;
  Diagnostic* current = nullptr;  // the diagnostic continuation lines belong to
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (rule.drop_ptxas_info && is_ptxas_resource_line(line)) continue;
    if (line.find_first_not_of(" \t") == std::string::npos || is_summary_line(line)) continue;
    if (auto k = header_kind(line)) {
      Diagnostic d{*k, context, line + "\n", {}};
      context.clear();
      if (*k == Kind::Note && !out.empty()) {
        out.back().notes.push_back(d);
        current = &out.back().notes.back();
      } else {
        out.push_back(d);
        current = &out.back();
      }
    } else if (is_context_line(line)) {
      context += line + "\n";
      current = nullptr;
    } else if (current) {
      current->text += line + "\n";
    }
  }
  return out;
}

std::string plural(size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The function context of a diagnostic, without the include chain (the model wrote one file).
std::string short_context(const std::string& context) {
  std::istringstream in(context);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("In file included from ", 0) != 0 && line.rfind(" ", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace

std::string cap_feedback(const std::string& text, size_t cap) {
  if (text.size() <= cap) return text;
  auto note = [&](size_t shown) {
    return fmt::format("\n[feedback cut: {} of {} bytes shown]\n", shown, text.size());
  };
  size_t room = cap > note(text.size()).size() ? cap - note(text.size()).size() : 0;
  size_t cut = room;
  if (size_t nl = text.rfind('\n', room); nl != std::string::npos && nl >= room / 2) cut = nl;
  return text.substr(0, cut) + note(cut);
}

std::string format_compiler_feedback(const std::string& log, const fs::path& workdir,
                                     const FeedbackRule& rule) {
  std::string text = log;
  std::string prefix = workdir.string() + "/";
  if (prefix.size() > 1)
    for (size_t p; (p = text.find(prefix)) != std::string::npos;) text.erase(p, prefix.size());
  std::vector<Diagnostic> diags = parse(text, rule);
  if (diags.empty()) return cap_feedback(text, rule.cap);

  std::vector<const Diagnostic*> errors, warnings;
  size_t notes = 0;
  for (const auto& d : diags) {
    (d.kind == Kind::Error ? errors : warnings).push_back(&d);
    notes += d.notes.size();
  }
  std::string summary = plural(errors.size(), "error") + ", " + plural(warnings.size(), "warning");
  if (!errors.empty() && !warnings.empty()) summary += "; the errors first";
  summary += ":\n";

  // Room is handed out by priority: errors, then their notes, then warnings, then theirs.
  const size_t reserve = 96;  // the cut line
  size_t room = rule.cap > summary.size() + reserve ? rule.cap - summary.size() - reserve : 0;
  auto take = [&](size_t n) {
    if (n > room) return false;
    room -= n;
    return true;
  };
  std::vector<bool> shown(diags.size(), false);
  std::vector<std::vector<bool>> note_shown(diags.size());
  size_t errors_shown = 0, warnings_shown = 0, notes_shown = 0;
  auto index = [&](const Diagnostic* d) { return static_cast<size_t>(d - diags.data()); };
  auto block = [](const Diagnostic& d) { return short_context(d.context) + d.text; };
  for (const Diagnostic* d : errors) {
    if (errors_shown >= rule.max_errors) break;
    std::string b = block(*d);
    if (take(b.size())) {
      shown[index(d)] = true;
      ++errors_shown;
    } else if (errors_shown == 0) {
      // Even an error too long for the cap leads: its header line, cut.
      shown[index(d)] = true;
      ++errors_shown;
      room = 0;
    }
  }
  auto take_notes = [&](const std::vector<const Diagnostic*>& list) {
    for (const Diagnostic* d : list) {
      if (!shown[index(d)]) continue;
      note_shown[index(d)].assign(d->notes.size(), false);
      for (size_t k = 0; k < d->notes.size(); ++k)
        if (take(d->notes[k].text.size())) {
          note_shown[index(d)][k] = true;
          ++notes_shown;
        }
    }
  };
  take_notes(errors);
  for (const Diagnostic* d : warnings)
    if (take(block(*d).size())) {
      shown[index(d)] = true;
      ++warnings_shown;
    }
  take_notes(warnings);

  std::string out = summary;
  auto render = [&](const std::vector<const Diagnostic*>& list) {
    for (const Diagnostic* d : list) {
      size_t i = index(d);
      if (!shown[i]) continue;
      out += block(*d);
      for (size_t k = 0; k < note_shown[i].size(); ++k)
        if (note_shown[i][k]) out += d->notes[k].text;
    }
  };
  render(errors);
  render(warnings);
  std::vector<std::string> cut;
  if (errors_shown < errors.size()) cut.push_back(plural(errors.size() - errors_shown, "error"));
  if (warnings_shown < warnings.size())
    cut.push_back(plural(warnings.size() - warnings_shown, "warning"));
  if (notes_shown < notes) cut.push_back(plural(notes - notes_shown, "note"));
  std::string cut_line;
  for (size_t i = 0; i < cut.size(); ++i)
    cut_line += (i == 0 ? "" : i + 1 == cut.size() ? " and " : ", ") + cut[i];
  if (!cut_line.empty()) {
    std::string tail = "[feedback cut: " + cut_line + " not shown]\n";
    // The cut line always fits: the leading error gives way when it alone filled the cap.
    out = cap_feedback(out, rule.cap > tail.size() ? rule.cap - tail.size() : 0);
    if (!out.empty() && out.back() != '\n') out += "\n";
    out += tail;
  }
  return cap_feedback(out, rule.cap);
}

}  // namespace evk
