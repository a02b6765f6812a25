// Where the product's files are: the data folders shipped with the source (suites/, knowledge/,
// oracle/, prompts/) and the helper executables. EVK_HOME overrides the data root, EVK_RUNNER
// the runner binary.
#pragma once
#include <filesystem>
#include <string>

namespace evk {

std::filesystem::path data_root();           // folder holding suites/, knowledge/, oracle/
std::filesystem::path runner_path();         // evk-runner executable
std::filesystem::path self_exe_dir();        // folder of the running executable
std::string python_path();                   // /usr/bin/python3 unless EVK_PYTHON is set

// Reads a whole file; throws UsageError naming the path when it cannot.
std::string read_file(const std::filesystem::path& p);
// Writes atomically: a temporary file in the same folder, fsync, rename.
void write_file_atomic(const std::filesystem::path& p, std::string_view bytes);

}  // namespace evk
