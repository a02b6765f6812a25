// The per-backend seed memory: knowledge/<backend>/*.md, each with a front-matter block
//   ---
//   kind: api|best_practice|experience
//   title: ...
//   tags: [a, b]
//   ---
//   body (Markdown, may contain fenced code)
// guide.md (kind api, tag `guide`) is the backend's always-on guide.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "memory/item.h"

namespace evk {

struct KnowledgeDoc {
  std::string source;  // "knowledge:<backend>/<file name>", the stable key of its item
  Item item;
};

// Parses one file's text; UsageError naming `name` when the front matter is missing or bad.
Item parse_knowledge(const std::string& text, const std::string& backend, const std::string& name);
// Every *.md directly in dir, sorted by file name.
std::vector<KnowledgeDoc> load_knowledge(const std::filesystem::path& dir,
                                         const std::string& backend);

}  // namespace evk
