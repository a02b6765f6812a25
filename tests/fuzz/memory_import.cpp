// An exported memory (`evokernel run --memory-from FILE`, `memory import`), which users share:
// imported into a real bank (SQLite). A malformed line is a UsageError naming file and line;
// anything else thrown is a finding. The bank is made afresh every few hundred inputs, so
// that what earlier inputs added does not slow the search down.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/error.h"
#include "core/workspace.h"
#include "fuzz_util.h"
#include "memory/memory.h"

namespace {
struct Bank {
  std::unique_ptr<evk::Workspace> ws;
  std::unique_ptr<evk::Memory> memory;
  int uses = 0;
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Bank bank;
  if (!bank.memory || ++bank.uses > 300) {
    bank.memory.reset();
    bank.ws.reset();
    std::filesystem::remove_all(evk::fuzz::scratch() / "ws");
    bank.ws = std::make_unique<evk::Workspace>(evk::fuzz::scratch() / "ws");
    evk::MemoryParams p;
    p.auto_seed = false;
    bank.memory = std::make_unique<evk::Memory>(*bank.ws, p);
    bank.uses = 0;
  }
  auto file = evk::fuzz::write_input("memory.jsonl", data, size);
  try {
    bank.memory->import_jsonl(file, {"excluded_task"});
  } catch (const evk::UsageError&) {
  }
  return 0;
}
