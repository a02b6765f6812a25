// Suites: a folder of task files, or builtin:<name> for suites/<name> shipped with evokernel.
#pragma once
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

// Lists and describes every task (one oracle process for the whole folder, cached per task
// content and max_elements). A broken task is returned with ok=false and its reason.
Suite load_suite(Workspace& ws, const std::string& suite, int64_t max_elements,
                 double timeout_s = 120);

// Finds a task by id; UsageError listing close ids when absent.
const TaskInfo& find_task(const Suite& s, const std::string& id);

// All built-in suite names (folders under suites/).
std::vector<std::string> builtin_suites();

}  // namespace evk
