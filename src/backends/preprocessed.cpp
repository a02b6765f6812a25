#include "backends/preprocessed.h"

#include <fmt/format.h>

#include <cctype>
#include <mutex>
#include <sstream>

#include "core/temp_dir.h"
#include "backends/source_scan.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

// g++'s own include search folders (`#include <...> search starts here:`), asked once.
const std::vector<std::string>& gxx_search_dirs() {
  static std::vector<std::string> dirs;
  static std::once_flag once;
  std::call_once(once, [] {
    ProcessOptions o;
    o.timeout_s = 30;
    o.env["LC_ALL"] = "C";
    ProcessResult r = run_process({"g++", "-xc++", "-E", "-v", "/dev/null", "-o", "/dev/null"}, o);
    std::istringstream in(r.err);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#include <...>", 0) == 0) inside = true;
      else if (line.rfind("End of search list", 0) == 0) inside = false;
      else if (inside && line.size() > 1 && line[0] == ' ')
        dirs.push_back(fs::path(line.substr(1)).lexically_normal().string());
    }
  });
  return dirs;
}

std::string longest_match(const std::string& p, const std::vector<std::string>& dirs) {
  std::string best;
  size_t best_len = 0;
  for (const auto& d : dirs) {
    std::string dir = d.back() == '/' ? d : d + "/";
    if (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && dir.size() > best_len) {
      best_len = dir.size();
      best = p.substr(dir.size());
    }
  }
  return best;
}

// The header's name relative to the search folder holding it, as spelled and with symbolic
// links resolved (nvcc reports /usr/local/cuda-13.0/... for -I/usr/local/cuda/...).
std::string header_name(const std::string& path, const std::vector<std::string>& dirs) {
  std::string n = longest_match(fs::path(path).lexically_normal().string(), dirs);
  if (!n.empty()) return n;
  std::error_code ec;
  std::vector<std::string> real;
  for (const auto& d : dirs) {
    fs::path r = fs::weakly_canonical(d, ec);
    if (!ec) real.push_back(r.string());
  }
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? "" : longest_match(p.string(), real);
}

// One `# N "file" flags` line of -E output.
struct Marker {
  int line = 0;
  std::string file;
  bool enter = false, leave = false;
};

std::optional<Marker> parse_marker(const std::string& s) {
  if (s.size() < 4 || s[0] != '#' || s[1] != ' ' || !std::isdigit(static_cast<unsigned char>(s[2])))
    return std::nullopt;
  Marker m;
  size_t k = 2;
  while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) m.line = m.line * 10 + (s[k++] - '0');
  if (s.compare(k, 2, " \"") != 0) return std::nullopt;
  size_t close = k + 2;
  for (; close < s.size() && s[close] != '"'; ++close)
    if (s[close] == '\\') ++close;
  if (close >= s.size()) return std::nullopt;
  m.file = s.substr(k + 2, close - k - 2);
  std::istringstream flags(s.substr(close + 1));
  for (int f; flags >> f;) {
    m.enter = m.enter || f == 1;
    m.leave = m.leave || f == 2;
  }
  return m;
}

bool is_pseudo_file(const std::string& f) { return f == "<built-in>" || f == "<command-line>"; }

// The -H list: one (depth, path) per file the compiler opened, in order.
std::vector<std::pair<size_t, std::string>> parse_h_list(const std::string& h) {
  std::vector<std::pair<size_t, std::string>> out;
  std::istringstream in(h);
  for (std::string line; std::getline(in, line);) {
    size_t dots = line.find_first_not_of('.');
    if (dots == 0 || dots == std::string::npos || line[dots] != ' ') continue;
    out.emplace_back(dots, line.substr(dots + 1));
  }
  return out;
}

// The first line of `src` that is a #line directive or a GNU linemarker directive (`# 12 "f"`),
// however spelled (%:, line continuations, comments between); 0 when none. Directives come
// only from the text itself (a macro never expands to one), so the text is where to look.
int line_directive(const std::string& src) {
  std::string t;
  std::vector<int> line_at;  // the original line of each character of t
  int line = 1;
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] == '\\' && i + 1 < src.size() && src[i + 1] == '\n') {
      ++i, ++line;
      continue;
    }
    t += src[i];
    line_at.push_back(line);
    if (src[i] == '\n') ++line;
  }
  t = blank_comments_and_strings(t, true);
  for (size_t b = 0; b < t.size();) {
    size_t e = std::min(t.find('\n', b), t.size());
    size_t k = t.find_first_not_of(" \t\r\f\v", b);
    if (k < e) {
      size_t after = t.compare(k, 1, "#") == 0 ? k + 1 : t.compare(k, 2, "%:") == 0 ? k + 2 : e;
      size_t d = after < e ? t.find_first_not_of(" \t", after) : e;
      if (d < e && (std::isdigit(static_cast<unsigned char>(t[d])) ||
                    (t.compare(d, 4, "line") == 0 && (d + 4 >= e || !is_ident(t[d + 4])))))
        return line_at[k];
    }
    b = e + 1;
  }
  return 0;
}

constexpr const char* kTampered =
    "the preprocessed source does not match the files the compiler opened: #line directives, "
    "line markers and macros that expand to them are not allowed";

}  // namespace

PreprocessOutcome parse_preprocessed(const std::string& text, const std::string& h_list,
                                     const std::string& source_name,
                                     const std::vector<std::string>& search_dirs) {
  PreprocessOutcome out;
  PreprocessedSource src;
  auto opened = parse_h_list(h_list);
  size_t next_opened = 0;
  std::vector<std::string> stack;  // stack[0] is the main file (or a pseudo file before it)
  std::vector<bool> forced_stack;  // whether stack[i] was forced in from the command line
  bool prologue = true;            // before the main file's own text starts
  int line = 1;
  std::istringstream in(text);
  for (std::string s; std::getline(in, s);) {
    if (auto m = parse_marker(s)) {
      if (m->enter) {
        // Files forced in from the command line (stdc-predef.h; nvcc's cuda_runtime.h) and
        // what they include are not in the -H list.
        bool forced = !stack.empty() && (is_pseudo_file(stack.back()) || forced_stack.back());
        stack.push_back(m->file);
        forced_stack.push_back(forced);
        if (!forced) {
          if (next_opened >= opened.size() || opened[next_opened].first != stack.size() - 1 ||
              fs::path(opened[next_opened].second).lexically_normal() !=
                  fs::path(m->file).lexically_normal()) {
            out.refusal = kTampered;
            return out;
          }
          ++next_opened;
          if (stack.size() == 2)
            src.includes.push_back({m->file, header_name(m->file, search_dirs), 0});
        }
      } else if (m->leave) {
        if (stack.size() < 2 || stack[stack.size() - 2] != m->file) {
          out.refusal = kTampered;
          return out;
        }
        stack.pop_back();
        forced_stack.pop_back();
        if (stack.size() == 1 && !src.includes.empty() && src.includes.back().line == 0 &&
            m->file == source_name)
          src.includes.back().line = m->line - 1;
      } else if (stack.empty()) {
        stack.push_back(m->file);
        forced_stack.push_back(false);
      } else if (m->file != stack.back()) {
        // Renaming the current file is the compiler's doing only in the prologue (the main
        // file, <built-in>, <command-line>, then the main file again).
        bool allowed = prologue && stack.size() == 1 &&
                       (is_pseudo_file(m->file) || m->file == source_name);
        if (!allowed) {
          out.refusal = kTampered;
          return out;
        }
        if (m->file == source_name && is_pseudo_file(stack.back())) prologue = false;
        stack.back() = m->file;
      }
      line = m->line;
      continue;
    }
    if (stack.size() == 1 && !prologue && stack.back() == source_name) {
      src.rows.push_back(s);
      src.row_line.push_back(line);
    }
    ++line;
  }
  if (next_opened != opened.size()) {
    out.refusal = kTampered;
    return out;
  }
  out.source = std::move(src);
  return out;
}

PreprocessOutcome preprocess_candidate(const std::string& src, const PreprocessSpec& spec) {
  if (int ln = line_directive(src)) {
    PreprocessOutcome out;
    out.refusal = fmt::format("line {}: {}", ln, kTampered);
    return out;
  }
  TempDir dir("evk-scratch-");
  write_file_atomic(dir.path() / spec.source_name, src);
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> dirs = gxx_search_dirs();
  for (const auto& a : spec.argv)
    if (a.rfind("-I", 0) == 0 && a.size() > 2)
      dirs.push_back(fs::path(a.substr(2)).lexically_normal().string());
  for (const auto& d : spec.extra_search_dirs) dirs.push_back(fs::path(d).lexically_normal().string());
  argv.push_back("-E");
  argv.insert(argv.end(), spec.list_includes.begin(), spec.list_includes.end());
  for (const std::string& a : {spec.source_name, std::string("-o"), std::string("kernel.i")})
    argv.push_back(a);
  ProcessOptions o;
  o.cwd = dir.path().string();
  o.timeout_s = spec.timeout_s;
  o.address_space_bytes = spec.address_space_bytes;
  o.file_size_bytes = 256ull << 20;
  o.env["LC_ALL"] = "C";
  o.output_cap = 1 << 20;
  ProcessResult r = run_process(argv, o);
  PreprocessOutcome out;
  if (!r.ok() || r.err_truncated || !fs::exists(dir.path() / "kernel.i")) {
    out.wall_s = r.wall_s;
    return out;  // the compile will fail the same way and say why
  }
  out = parse_preprocessed(read_file(dir.path() / "kernel.i"), r.err, spec.source_name, dirs);
  out.wall_s = r.wall_s;
  return out;
}

}  // namespace evk
