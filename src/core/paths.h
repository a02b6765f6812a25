// Where the product's files are, found from the running executable so that an installed tree
// can be moved as a whole:
//   installed   <prefix>/bin/evokernel, <prefix>/libexec/evokernel/evk-runner*,
//               <prefix>/share/evokernel/{suites,knowledge,oracle,prompts}
//   build tree  an executable inside the build folder reads the source checkout's data and the
//               build folder's runners (the only case where a compiled-in path is used)
// EVK_HOME overrides the data root, EVK_RUNNER the runner binary.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace evk {

std::filesystem::path data_root();     // folder holding suites/, knowledge/, oracle/, prompts/
std::filesystem::path runner_dir();    // folder holding evk-runner and the device runners
std::filesystem::path runner_path();   // evk-runner executable
std::filesystem::path self_exe_dir();  // folder of the running executable
std::string python_path();             // /usr/bin/python3 unless EVK_PYTHON is set

// The data folders an installation must hold, and a check that `root` holds them: "" when it
// does, else one line naming what is missing and how to fix it (EVK_HOME).
inline constexpr std::string_view kDataFolders[] = {"suites", "knowledge", "oracle", "prompts"};
std::string check_data_root(const std::filesystem::path& root);

// Reads a whole file; throws UsageError naming the path when it cannot.
std::string read_file(const std::filesystem::path& p);
// Writes atomically: a temporary file in the same folder, fsync, rename.
void write_file_atomic(const std::filesystem::path& p, std::string_view bytes);

}  // namespace evk
