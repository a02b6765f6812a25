// The verifier's tables in the workspace database (component "verify"): cached verdicts, keyed
// by Verifier::cache_key (the task, the oracle, the source, the toolchain: this build, the
// backend's runner, the compiler and every file its include folders hold, and every option that
// can change a verdict), and the machine's measured peaks.
#pragma once
#include <optional>
#include <string>

#include "core/verdict.h"

namespace evk {

class Workspace;

// Creates or upgrades the verifier's tables (forward-only migrations).
void migrate_verify_schema(Workspace& ws);

// The caller serialises access to ws.db() (Verifier holds a mutex).
std::optional<Verdict> cached_verdict(Workspace& ws, const std::string& key);
void store_verdict(Workspace& ws, const std::string& key, const Verdict& v);

}  // namespace evk
