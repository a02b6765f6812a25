// oracle_cache: what the reference cache saves. Cold = the oracle subprocess computes a task's
// reference (PyTorch start-up, float64 and float32 forward, eager timing); cached = the same
// request served from the workspace. Also the bare cost of starting the oracle's interpreter
// with torch imported, which every cold request pays. Prints medians and the ratio.
//   oracle_cache [SUITE] [TASK] [REPS]   (default builtin:level1 relu 5)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"

using namespace evk;
namespace fs = std::filesystem;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
static double seconds(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  std::string suite = argc > 1 ? argv[1] : "builtin:level1";
  std::string task = argc > 2 ? argv[2] : "relu";
  int reps = argc > 3 ? std::stoi(argv[3]) : 5;
  fs::path root = fs::temp_directory_path() / fmt::format("evk-bench-oracle-{}", ::getpid());
  OracleOptions opt;
  std::vector<double> startup, cold, cached;
  for (int i = 0; i < reps; ++i) {
    startup.push_back(seconds([&] { run_process({python_path(), "-c", "import torch"}); }));
    fs::remove_all(root);
    Workspace ws(root);
    Suite s = load_suite(ws, suite, 0);
    const TaskInfo& t = find_task(s, task);
    cold.push_back(seconds([&] { oracle_reference(ws, t, 0, opt); }));
    for (int k = 0; k < 20; ++k) cached.push_back(seconds([&] { oracle_reference(ws, t, 0, opt); }));
  }
  fs::remove_all(root);
  double c = median(cold), h = median(cached), st = median(startup);
  fmt::print("task {} ({}), {} repetitions\n", task, suite, reps);
  fmt::print("  python3 + import torch (oracle start-up): {:8.1f} ms median\n", 1e3 * st);
  fmt::print("  cold reference (oracle subprocess):       {:8.1f} ms median (min {:.1f}, max {:.1f})\n",
             1e3 * c, 1e3 * *std::min_element(cold.begin(), cold.end()),
             1e3 * *std::max_element(cold.begin(), cold.end()));
  fmt::print("  cached reference (workspace):             {:8.3f} ms median\n", 1e3 * h);
  fmt::print("  cold / cached: {:.0f}x   start-up share of cold: {:.0f}%\n", c / h, 100 * st / c);
}
