// Shared by the memory tests: a temporary workspace folder removed at the end of the test.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/temp_dir.h"
#include "core/workspace.h"
#include "memory/memory.h"

namespace evk::testing {

// A test's private folder, removed with what is in it (core/temp_dir.h).
struct TempDir : evk::TempDir {
  TempDir() : evk::TempDir("evk-memory-") {}
};

inline std::filesystem::path test_knowledge() {
  return std::filesystem::path(EVK_SOURCE_DIR) / "tests" / "data" / "knowledge";
}

// Parameters for tests: seeded from tests/data/knowledge, never from the product's knowledge.
inline MemoryParams test_params() {
  MemoryParams p;
  p.auto_seed = false;
  p.knowledge_root = test_knowledge();
  return p;
}

inline Item trace_item(const std::string& task, const std::string& title, const std::string& code,
                       bool feasible = false) {
  Item it;
  it.kind = ItemKind::Trace;
  it.origin_task = task;
  it.title = title;
  it.body = "attempt on " + task;
  it.code = code;
  it.feasible = feasible;
  it.tags = {task};
  return it;
}

}  // namespace evk::testing
