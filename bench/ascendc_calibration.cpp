// ascendc_calibration: the emulated 910B's cycle model against published times of real 910B
// runs. Each file in bench/ascendc_calibration/kernels is one row: an Ascend C kernel written
// to do what the published run did, with its header naming the published time
// (`// published_us:`), what that time measured (`// measure: device` for device time from
// NPU events, `// measure: call` for a host wall clock around the launch and a stream
// synchronise), the chip and the source. Its task (the same name in tasks/) fixes the shape.
// Each kernel is verified through the real verifier (correctness included) and its modeled
// time set beside the published one: device rows against the model's cycles, call rows against
// its latency (cycles plus the launch cost). The eager column is the baseline's model of the
// same task, for the rows whose published run was that PyTorch operator (`// eager: yes`).
// Prints every ratio model/published and their geometric mean (the aim: each within
// 0.67-1.5x, the geomean within 0.8-1.25x).
//   ascendc_calibration [--only NAME]
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <regex>

#include "core/error.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace {
using namespace evk;
namespace fs = std::filesystem;

struct Row {
  std::string name, source, chip, published, measure;
  double published_us = 0;
  bool eager = false;  // the published run was the task's PyTorch operator itself
  std::string kernel;
};

std::string field(const std::string& src, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(src, m, std::regex("// " + key + ": ([^\\n]*)"))) return "";
  return m[1].str();
}

Row read_row(const fs::path& file) {
  Row r;
  r.kernel = read_file(file);
  r.name = field(r.kernel, "calibration");
  r.source = field(r.kernel, "source");
  r.chip = field(r.kernel, "chip");
  r.published = field(r.kernel, "published");
  std::string us = field(r.kernel, "published_us"), measure = field(r.kernel, "measure");
  if (r.name.empty() || us.empty() || measure.empty())
    throw Error(file.string() +
                ": a calibration kernel needs the header lines '// calibration:', "
                "'// published_us:' and '// measure:'");
  r.published_us = std::stod(us);
  r.measure = measure.substr(0, measure.find(' '));
  r.eager = field(r.kernel, "eager").rfind("yes", 0) == 0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string only;
    for (int i = 1; i + 1 < argc; i += 2)
      if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    fs::path dir = data_root() / "bench" / "ascendc_calibration";
    std::vector<Row> rows;
    for (const auto& e : fs::directory_iterator(dir / "kernels"))
      if (e.path().extension() == ".cpp") rows.push_back(read_row(e.path()));
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });

    Workspace ws(fs::temp_directory_path() / "evk-bench-ascendc-calibration-ws");
    OracleOptions oo;
    oo.max_elements = int64_t{1} << 27;  // the published shapes, never shrunk
    oo.timing_runs = 1;                  // the model is deterministic
    Verifier verifier(ws, oo);
    Suite suite = load_suite(ws, (dir / "tasks").string(), oo.max_elements);
    VerifyOptions vo;
    vo.backend = "ascendc";
    vo.use_cache = false;
    vo.seeds = 1;
    vo.run_timeout_s = 900;  // the emulator runs the published shapes in full

    fmt::print("{:<22} {:>8} {:>11} {:>11} {:>7} {:>11} {:>7}\n", "row", "measure", "real us",
               "model us", "ratio", "eager us", "ratio");
    double log_sum = 0, eager_log_sum = 0;
    int n = 0, eager_n = 0, outside = 0;
    for (const Row& r : rows) {
      if (!only.empty() && r.name != only) continue;
      Verdict v = verifier.verify(find_task(suite, r.name), r.kernel, vo);
      if (!v.feasible) {
        fmt::print("{:<22} {}: {}\n", r.name, category_name(v.category), v.feedback.substr(0, 300));
        continue;
      }
      const auto& modeled = v.metrics["modeled"];
      double device_us = modeled.value("cycles", 0.0) / (modeled.value("clock_ghz", 1.0) * 1e3);
      double model_us = r.measure == "device" ? device_us : v.latency_ms * 1e3;
      double ratio = model_us / r.published_us;
      log_sum += std::log(ratio), ++n;
      if (ratio < 0.67 || ratio > 1.5) ++outside;
      std::string eager = "", eager_ratio = "";
      if (r.eager) {
        // The eager model charges its launches; a device-time row is set against the same.
        double e = v.eager_ms * 1e3 - (r.measure == "device" ? modeled.value("launch_us", 0.0) : 0);
        eager = fmt::format("{:.1f}", e);
        eager_ratio = fmt::format("{:.2f}", e / r.published_us);
        eager_log_sum += std::log(e / r.published_us), ++eager_n;
      }
      fmt::print("{:<22} {:>8} {:>11.1f} {:>11.1f} {:>7.2f} {:>11} {:>7}\n", r.name, r.measure,
                 r.published_us, model_us, ratio, eager, eager_ratio);
      std::fflush(stdout);  // a row at a time: the big shapes take minutes each
    }
    if (n > 0)
      fmt::print("kernels: geomean model/real {:.3f} over {} rows, {} outside 0.67-1.5\n",
                 std::exp(log_sum / n), n, outside);
    if (eager_n > 0)
      fmt::print("eager:   geomean model/real {:.3f} over {} rows\n",
                 std::exp(eager_log_sum / eager_n), eager_n);
    fmt::print("sources:\n");
    for (const Row& r : rows)
      if (only.empty() || r.name == only)
        fmt::print("  {:<22} {} ({}; {})\n", r.name, r.source, r.chip, r.published);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ascendc_calibration: {}\n", e.what());
    return 1;
  }
}
