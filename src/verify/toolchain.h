// What decides a verdict besides the task, the source and the options: the programs and files
// a candidate's build and run go through. A verdict cached under one toolchain must never answer
// for another (a new gate in evokernel, a recalibrated cycle model in evk-runner-ascendc, an
// edited emulation header): every one of them is in the fingerprint, and the verdict cache key
// (Verifier::cache_key) holds the fingerprint.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace evk {

class Backend;

// The folders `compile_command` names for headers (-I, -isystem, -iquote, -idirafter; the
// folder joined to the flag or as the next word), in order.
std::vector<std::filesystem::path> include_dirs(const std::string& compile_command);

// A digest of every regular file under `dir` (its path relative to `dir` and its bytes);
// "" when `dir` is not a folder. Hashed once per process and folder while no file's name, size
// or modification time changes (a stat walk per call, the bytes read only after a change).
std::string tree_digest(const std::filesystem::path& dir);

// The executable that runs `backend`'s kernels (its RunnerSpec, found beside evk-runner).
std::filesystem::path backend_runner(const Backend& backend);

// sha256 of: this program's and the backend's runner's build ids, the build ids of the evk-*
// helpers the compile command names (evk-clbuild), the compile command, the compiler's
// `--version`, and tree_digest of each include folder. The compiler's version is asked once per
// process and command.
std::string toolchain_fingerprint(const Backend& backend);

}  // namespace evk
