// knowledge_speedups: measures every best practice of a knowledge bundle on its built-in task.
// A best_practice file names a task in its front matter and holds two complete kernels: the
// first is the code before the change, the second after. Both are compiled with the backend's
// flags, checked against the oracle's reference, then timed interleaved (one call of each in
// turn, so drift on this shared machine hits both alike) and the medians compared.
//
// usage: knowledge_speedups [--dir knowledge/cpu] [--include DIR] [--max-elements N] [--runs R]
//                           [--check] [FILTER...]
// --check: instead of timing, compile every complete kernel of every file that names a task and
// check it against the reference (quick feedback while writing knowledge).
// Threads: 1 unless the file's body holds "<!-- bench: threads=N -->" (then "after" runs on N
// threads; "before" always on 1).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/paths.h"
#include "core/workspace.h"
#include "knowledge_bundle.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"

namespace fs = std::filesystem;
using namespace evk;

int main(int argc, char** argv) {
  fs::path dir = data_root() / "knowledge" / "cpu";
  int64_t max_elements = 16777216;  // tasks.max_elements default
  int max_runs = 40;
  std::vector<std::string> filters;
  fs::path include;
  bool check_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--max-elements" && i + 1 < argc) max_elements = std::atoll(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) max_runs = std::atoi(argv[++i]);
    else if (a == "--include" && i + 1 < argc) include = argv[++i];
    else if (a == "--check") check_only = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: knowledge_speedups [--dir DIR] [--include DIR] [--max-elements N] [--runs R] [--check] [FILTER...]\n");
      return 0;
    } else filters.push_back(a);
  }
  try {
    Workspace ws(fs::path(EVK_BINARY_DIR) / "knowledge-bench-ws");
    fs::path work = ws.cache_dir() / "kernels";
    if (include.empty()) include = dir;
    auto selected = [&](const std::string& stem) {
      return filters.empty() || std::any_of(filters.begin(), filters.end(),
                                            [&](const std::string& f) { return stem.find(f) != std::string::npos; });
    };
    auto reference = [&](const std::string& task) {
      auto [suite_name, task_id] = knowledge::split_task(task);
      Suite suite = load_suite(ws, suite_name, max_elements);
      OracleOptions opt;
      opt.max_elements = max_elements;
      opt.threads = 1;
      return oracle_reference(ws, find_task(suite, task_id), 0, opt);
    };
    if (check_only) {
      omp_set_num_threads(1);
      int bad = 0;
      for (const auto& item : knowledge::load_bundle(dir)) {
        std::string stem = item.file.stem().string();
        if (!selected(stem)) continue;
        auto k = item.kernels();
        for (size_t i = 0; i < k.size(); ++i) {
          std::string name = stem + "_" + std::to_string(i), err;
          try {
            fs::path so = knowledge::compile_kernel(k[i]->code, include, work, name);
            if (!item.task.empty()) err = knowledge::KernelRun(so, reference(item.task)).check();
          } catch (const std::exception& e) {
            err = e.what();
          }
          bad += !err.empty();
          std::printf("%-40s %-30s %s\n", name.c_str(), item.task.c_str(), err.empty() ? "ok" : err.c_str());
          std::fflush(stdout);
        }
      }
      return bad ? 1 : 0;
    }
    std::printf("%-34s %-28s %10s %10s %8s %10s %s\n", "file", "task", "before_ms", "after_ms", "ratio",
                "eager_ms", "threads");
    for (const auto& item : knowledge::load_bundle(dir)) {
      if (item.kind != "best_practice" || item.task.empty()) continue;
      std::string stem = item.file.stem().string();
      if (!selected(stem)) continue;
      auto k = item.kernels();
      if (k.size() < 2) {
        std::printf("%-34s needs two complete kernels (before, after); has %zu\n", stem.c_str(), k.size());
        continue;
      }
      int threads = 1;
      if (size_t t = item.body.find("<!-- bench: threads="); t != std::string::npos)
        threads = std::atoi(item.body.c_str() + t + 20);
      Reference ref = reference(item.task);
      knowledge::KernelRun before(knowledge::compile_kernel(k[0]->code, include, work, stem + "_before"), ref);
      knowledge::KernelRun after(knowledge::compile_kernel(k[1]->code, include, work, stem + "_after"), ref);
      omp_set_num_threads(1);
      std::string e1 = before.check();
      omp_set_num_threads(threads);
      std::string e2 = after.check();
      if (!e1.empty() || !e2.empty()) {
        std::printf("%-34s WRONG: before: %s after: %s\n", stem.c_str(), e1.c_str(), e2.c_str());
        continue;
      }
      // Runs sized from one warm call of the slower kernel: about 3 s of timing each, 5..max_runs.
      omp_set_num_threads(1);
      double est = before.median_ms(1, 1);
      int runs = std::clamp(static_cast<int>(3000.0 / std::max(est, 1e-3)), 5, max_runs);
      std::vector<double> tb, ta;
      omp_set_num_threads(threads);
      after.median_ms(1, 1);
      for (int r = 0; r < runs; ++r) {
        omp_set_num_threads(1);
        tb.push_back(before.median_ms(0, 1));
        omp_set_num_threads(threads);
        ta.push_back(after.median_ms(0, 1));
      }
      std::sort(tb.begin(), tb.end());
      std::sort(ta.begin(), ta.end());
      double mb = tb[tb.size() / 2], ma = ta[ta.size() / 2];
      std::printf("%-34s %-28s %10.3f %10.3f %7.2fx %10.3f %d (runs %d)\n", stem.c_str(), item.task.c_str(), mb, ma,
                  mb / ma, ref.eager_ms, threads, runs);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "knowledge_speedups: %s\n", e.what());
    return 1;
  }
  return 0;
}
