// ascendc_eager_table: what the Ascend C eager baseline charges each level-1 task, against its
// roofline on the same emulated 910B (bytes at 1600 GB/s or FLOPs at the peak, plus one launch
// per operator), and what the charge rests on (the reference library's kernels, or the
// roofline-at-efficiency fallback for the operators the library lacks). One line per task and
// a summary per family (the library kernel that served it, or "fallback").
//   ascendc_eager_table [--suite builtin:level1] [--max-elements 65536] [--workspace DIR]
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "backends/ascendc/eager_model.h"
#include "backends/ascendc/npu_constants.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"

using namespace evk;
namespace fs = std::filesystem;

namespace {

// The ideal: every non-view operator at its roofline (no efficiency) plus its launch.
double roofline_ms(const Reference& r, int ops) {
  double bytes_ms = static_cast<double>(r.bytes) / (npu::kHbmGBps * 1e6);
  double flops_ms = static_cast<double>(r.flops) / (npu::kCubeFp32Gflops * 1e6);
  return std::max(bytes_ms, flops_ms) + std::max(ops, 1) * npu::kLaunchUs * 1e-3;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string suite = "builtin:level1";
    int64_t max_elements = 65536;
    fs::path wsdir = fs::temp_directory_path() / "evk-bench-ascendc-ws";
    for (int i = 1; i + 1 < argc; i += 2) {
      if (!std::strcmp(argv[i], "--suite")) suite = argv[i + 1];
      if (!std::strcmp(argv[i], "--max-elements")) max_elements = std::stoll(argv[i + 1]);
      if (!std::strcmp(argv[i], "--workspace")) wsdir = argv[i + 1];
    }
    Workspace ws(wsdir);
    OracleOptions oo;
    oo.max_elements = max_elements;
    oo.timing_runs = 1;
    Suite s = load_suite(ws, suite, max_elements);
    fs::path exe = runner_dir() / "evk-ascendc-eager";
    std::map<std::string, std::vector<double>> family;  // family -> eager/roofline ratios
    std::map<std::string, std::string> fallbacks;
    fmt::print("{:<44} {:>10} {:>10} {:>6}  {}\n", "task", "eager ms", "roofline", "ratio",
               "basis");
    for (const auto& t : s.tasks) {
      if (!t.ok) continue;
      Reference r;
      try {
        r = oracle_reference(ws, t, 0, oo);
      } catch (const std::exception& e) {
        fmt::print("{:<44} no reference: {}\n", t.id, std::string(e.what()).substr(0, 80));
        continue;
      }
      EagerCost c = modeled_eager(r, exe);
      int ops = c.library_ops + static_cast<int>(c.fallback.size());
      double roof = roofline_ms(r, ops), ratio = c.ms / roof;
      fmt::print("{:<44} {:>10.4f} {:>10.4f} {:>6.2f}  {}\n", t.id, c.ms, roof, ratio, c.basis());
      std::string fam = c.library_ops == 0 ? "fallback" : c.fallback.empty() ? "library" : "mixed";
      // The family: the first operator's name (kernel class) for a one-operator task.
      const auto ops_json = r.meta.value("fx_ops", nlohmann::json::array());
      std::string first;
      for (const auto& op : ops_json)
        if (op.value("kind", "") != "placeholder" && op.value("kind", "") != "get_attr" &&
            op.value("kind", "") != "output") {
          first = op.value("op", "");
          break;
        }
      family[fam + " " + first].push_back(ratio);
      for (const auto& f : c.fallback) fallbacks[f.substr(0, f.find(':'))] = f;
    }
    fmt::print("\nby family (median eager/roofline, tasks):\n");
    for (const auto& [f, v] : family) fmt::print("  {:<40} {:>6.2f}  {}\n", f, median(v), v.size());
    fmt::print("\noperators costed by the roofline fallback:\n");
    for (const auto& [op, why] : fallbacks) fmt::print("  {}\n", why);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ascendc_eager_table: {}\n", e.what());
    return 1;
  }
}
