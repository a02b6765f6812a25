// Suites: a folder of task files, or builtin:<name> for suites/<name> shipped with evokernel.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace evk {

class Workspace;

struct Suite {
  std::string name;                 // as the user gave it
  std::filesystem::path dir;
  std::vector<TaskInfo> tasks;      // sorted by id; broken tasks included with ok=false
};

// Resolves "builtin:level1" or a path. UsageError when the folder does not exist or holds no
// task files.
std::filesystem::path resolve_suite_dir(const std::string& suite);

struct OracleOptions;

// Lists and describes every task (one oracle process for the whole folder, cached per task
// content and fitting bounds), fitted to the bounds of `fit` (max_elements, max_gflop): the
// same fitting the oracle's references get. A broken task is returned with ok=false and its
// reason. Levels come from the folder's manifest (kSuiteManifest) where it has one.
Suite load_suite(Workspace& ws, const std::string& suite, const OracleOptions& fit,
                 double timeout_s = 120);
// The same with only an element bound.
Suite load_suite(Workspace& ws, const std::string& suite, int64_t max_elements,
                 double timeout_s = 120);

// A suite folder's manifest: JSON {"levels": {"TASK_ID": N, ...}} (written by `evokernel tasks
// select`), so a selection of KernelBench problems keeps each problem's level.
inline constexpr const char* kSuiteManifest = "evokernel-suite.json";

// The levels of `dir`'s manifest, task id -> level; empty when it has none. UsageError naming
// the file when it is malformed (not JSON, levels not an object of integers, nested too deep).
std::map<std::string, int> suite_manifest_levels(const std::filesystem::path& dir);

// One task's description as the oracle's `describe` prints it (one JSON object per line), over
// `t`'s id, path and source. json::exception naming what is wrong when it is not one.
TaskInfo task_info_from_json(const nlohmann::json& j, TaskInfo t);

// Finds a task by id; UsageError listing close ids when absent.
const TaskInfo& find_task(const Suite& s, const std::string& id);

// All built-in suite names (folders under suites/).
std::vector<std::string> builtin_suites();

}  // namespace evk
