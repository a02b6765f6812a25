#include "memory/knowledge.h"

#include <algorithm>

#include "core/error.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  auto sp = [](unsigned char c) { return std::isspace(c); };
  while (!s.empty() && sp(s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && sp(s[i])) ++i;
  return s.substr(i);
}

std::string unquote(std::string s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string> parse_list(const std::string& v, const std::string& name) {
  std::string s = trim(v);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']')
    throw UsageError(name + ": tags must be a list like [a, b]");
  std::vector<std::string> out;
  std::string cur;
  for (char c : s.substr(1, s.size() - 2)) {
    if (c == ',') {
      if (!trim(cur).empty()) out.push_back(unquote(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(unquote(cur));
  return out;
}

}  // namespace

Item parse_knowledge(const std::string& text, const std::string& backend, const std::string& name) {
  auto fail = [&](const std::string& why) -> UsageError {
    return UsageError("knowledge file " + name + ": " + why +
                      " (start it with ---, lines kind:, title:, tags: [..], optional task:, then ---)");
  };
  if (text.rfind("---\n", 0) != 0) throw fail("no front matter");
  size_t end = text.find("\n---", 3);
  if (end == std::string::npos) throw fail("front matter is not closed");
  Item it;
  it.backend = backend;
  bool has_kind = false;
  size_t pos = 4;
  while (pos <= end) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (trim(line).empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) throw fail("line '" + line + "' is not key: value");
    std::string key = trim(line.substr(0, colon)), value = line.substr(colon + 1);
    if (key == "kind") {
      it.kind = kind_from(unquote(value));
      has_kind = true;
    } else if (key == "title") {
      it.title = unquote(value);
    } else if (key == "tags") {
      it.tags = parse_list(value, name);
    } else if (key == "task") {
      // The built-in task a complete kernel in the file solves: read by the knowledge test,
      // not memory content (seed items come from no task).
    } else {
      throw fail("unknown key '" + key + "'");
    }
  }
  if (!has_kind) throw fail("no kind");
  if (it.kind == ItemKind::Trace) throw fail("kind trace is written by runs, not seeded");
  if (it.title.empty()) it.title = name;
  size_t body = text.find('\n', end + 1);
  it.body = body == std::string::npos ? "" : trim(text.substr(body + 1));
  return it;
}

std::vector<KnowledgeDoc> load_knowledge(const fs::path& dir, const std::string& backend) {
  if (!fs::is_directory(dir))
    throw UsageError("knowledge folder " + dir.string() + " does not exist");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<KnowledgeDoc> docs;
  for (const auto& f : files) {
    std::string name = f.filename().string();
    docs.push_back({"knowledge:" + backend + "/" + name,
                    parse_knowledge(read_file(f), backend, backend + "/" + name)});
  }
  return docs;
}

}  // namespace evk
