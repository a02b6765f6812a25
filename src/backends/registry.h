// The backends, one row each: what differs between backends by name alone, in one table that
// every consumer reads (make_backend and backend_names, the runner's jail, the knowledge
// bundle's folder, the verifier's timing). Adding a backend is one row in registry.cpp, its
// Backend class (backend.h), its knowledge bundle and, optionally, its runner and its sim
// generator (docs/adding-a-backend.md).
//
// Invariants, checked by tests/unit/verify/registry_test.cpp: names are unique and sorted; a
// row's make() builds a Backend whose name() is the row's; the sim has a generator for every
// row (the sim depends on core only, so it keeps its own table keyed by these names).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace evk {

class Backend;

// How a kernel's latency is obtained.
enum class Timing {
  HostClock,     // the parent's clock around batches of calls on pinned CPUs (cpu, opencl)
  DeviceEvents,  // the parent's clock around batches the runner ends with a device sync (cuda)
  Modeled,       // the runner's deterministic cost model: no clock, no confirmation (ascendc)
};

struct BackendRow {
  std::string name;                    // --backend, knowledge/<name>/, memory items
  std::unique_ptr<Backend> (*make)();  // the Backend class (its compile command, rules, ...)
  std::string runner;                  // the runner executable, beside evk-runner
  Timing timing = Timing::HostClock;
  // What the runner's jail passes through besides the runner and the candidate's folder:
  // device nodes (the /dev entries whose names start with one of these) and read-only system
  // folders (bound where they exist).
  std::vector<std::string> device_nodes;
  std::vector<std::string> system_dirs;
  // Timing::Modeled: the process, beside the runner, that replays the runner's recorded API
  // calls and whose outputs and cycles the verdict takes (verify/trace_replay.h); "" otherwise.
  std::string replay;
  // Timing::Modeled: the program, beside the runner, that models the PyTorch eager baseline on
  // the same machine (ascendc: evk-ascendc-eager, the reference kernel library); "" otherwise.
  std::string eager;
};

// Every backend, sorted by name.
const std::vector<BackendRow>& backend_rows();
// The row named `name`; UsageError listing the known backends when there is none.
const BackendRow& backend_row(const std::string& name);

}  // namespace evk
