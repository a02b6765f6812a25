// Benchmarks of the verifier (not run by ctest). Prints each figure with the ratio to its
// named reference, measured in the same run:
//   fidelity  the same kernel verified 10 times in fresh runner processes: max/min of medians
//   overhead  verify wall time / (bare g++ on the same source + the kernel's own run time)
//   cache     a cache hit's cost / a fresh verification
//   pool      throughput with 2 jobs / with 1 job
// Usage: bench_verify [--workspace DIR] [--max-elements N] [--runs N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "backends/backend.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/temp_dir.h"
#include "core/workspace.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

using namespace evk;
namespace fs = std::filesystem;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string solution(const std::string& name) {
  return read_file(data_root() / "tests" / "corpus" / "cpu" / "solutions" / (name + ".cpp"));
}

// A unique comment defeats the verdict cache without changing the kernel.
std::string variant(const std::string& src, int k) {
  return src + "\n// variant " + std::to_string(k) + "\n";
}

// The machine's load average (1, 5, 15 min), printed beside the figures: on shared cores
// every ratio here moves with it.
std::string load_average() {
  std::string s = read_file("/proc/loadavg");
  std::istringstream in(s);
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The verifications' cost by phase (Verdict metrics "cost_s"), medians, as shares of the total.
// The verifier's phases: cache_key, source_rules, compile_and_symbols (of which compiler),
// references (oracle outputs read, sets built), runner; the runner's: regions (input sets into
// shared memory), runner_start (process, jail, library loaded), correctness (each set called
// once and compared), timing (warm-up, timed batches, checked calls), runner_exit.
void print_breakdown(const std::map<std::string, std::vector<double>>& cost) {
  auto it = cost.find("total");
  if (it == cost.end()) return;
  const double total = median(it->second);
  std::cout << "breakdown (median s over the verifications, share of the total):\n";
  for (const char* phase :
       {"cache_key", "source_rules", "compile_and_symbols", "compiler", "references", "runner",
        "regions", "runner_start", "correctness", "timing", "runner_exit", "total"}) {
    auto p = cost.find(phase);
    if (p == cost.end()) continue;
    const bool inner = std::string(phase) == "compiler" ||
                       std::string(phase).rfind("runner_", 0) == 0 ||
                       std::string(phase) == "regions" || std::string(phase) == "correctness" ||
                       std::string(phase) == "timing";
    std::cout << fmt::format("  {}{:<22} {:8.3f} s {:6.1f}%\n", inner ? "  " : "", phase,
                             median(p->second), 100 * median(p->second) / total);
  }
}

}  // namespace

int main(int argc, char** argv) {
  fs::path wsdir = "/tmp/evk-bench-ws";
  int64_t max_elements = 4 << 20;
  int runs = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--workspace") wsdir = argv[i + 1];
    if (a == "--max-elements") max_elements = std::stoll(argv[i + 1]);
    if (a == "--runs") runs = std::stoi(argv[i + 1]);
  }
  Workspace ws(wsdir);
  OracleOptions oo;
  oo.max_elements = max_elements;
  Verifier v(ws, oo);
  Suite s = load_suite(ws, "builtin:level1", max_elements);
  const TaskInfo& relu = find_task(s, "relu");
  const TaskInfo& mm = find_task(s, "matmul_square");
  VerifyOptions opt;
  opt.backend = "cpu";
  opt.use_cache = false;
  std::string relu_src = solution("relu");
  // Warm the references and the peaks so that they do not count below.
  Verdict first = v.verify(relu, relu_src, opt);
  if (!first.feasible) {
    std::cerr << "relu solution infeasible: " << first.feedback << "\n";
    return 1;
  }
  (void)v.verify(mm, solution("matmul_square"), opt);
  std::cout << "load average " << load_average() << "\n";
  MachinePeaks pk = v.peaks();
  std::cout << fmt::format(
      "machine peaks: {:.1f} GB/s DRAM copy, {:.1f} GB/s L2, {:.1f} GFLOP/s (1 thread)\n", pk.gbps,
      pk.l2_gbps, pk.gflops);

  // 1. Timing fidelity.
  std::vector<double> med;
  for (int k = 0; k < runs; ++k) med.push_back(v.verify(relu, relu_src, opt).latency_ms);
  std::sort(med.begin(), med.end());  // min and max are then the ends
  const double mn = med.front(), mx = med.back();
  std::cout << fmt::format(
      "fidelity: relu ({} elements) verified {}x: medians {:.3f}..{:.3f} ms, "
      "median of medians {:.3f} ms, max/min {:.3f} (aim <= 1.10)\n",
      relu.input_elements, runs, mn, mx, med[med.size() / 2], mx / mn);

  // 2. Overhead against bare g++ plus the kernel's own run time.
  auto backend = make_backend("cpu");
  double gxx = 1e9;
  for (int k = 0; k < 3; ++k) {
    TempDir d("evk-bench-");
    gxx = std::min(gxx, backend->compile(relu_src, d.path(), 120).wall_s);
  }
  std::vector<double> ratio;
  std::map<std::string, std::vector<double>> cost;  // phase -> seconds, one per verification
  for (int k = 0; k < 3; ++k) {
    Verdict r = v.verify(relu, variant(relu_src, 1000 + k), opt);
    const nlohmann::json phases = r.metrics.value("cost_s", nlohmann::json::object());
    for (const auto& [phase, s] : phases.items()) cost[phase].push_back(s.get<double>());
    // Calls made (the verdict says; before the parent-driven protocol: seeds + reuse + mixed
    // probe + one warm-up per seed + the timed calls).
    int calls = r.metrics.value("kernel_calls", opt.seeds + 2 + opt.seeds + r.timed_calls);
    double kernel_s = calls * r.latency_ms / 1e3;
    ratio.push_back(r.wall_s / (gxx + kernel_s));
    std::cout << fmt::format(
        "overhead: verify {:.2f} s vs g++ {:.2f} s + kernel {:.2f} s ({} calls, "
        "{} checked, {} timed into a poisoned slot) -> {:.3f}\n",
        r.wall_s, gxx, kernel_s, calls, r.metrics.value("checked_calls", 0),
        r.metrics.value("poisoned_calls", -1), ratio.back());
  }
  std::sort(ratio.begin(), ratio.end());
  std::cout << fmt::format("overhead: median ratio {:.3f} (aim <= 2; load average {})\n", ratio[1],
                           load_average());
  print_breakdown(cost);

  // 3. Cache hit against a fresh verification.
  VerifyOptions cached = opt;
  cached.use_cache = true;
  std::string src = variant(relu_src, 2000 + static_cast<int>(now_s()) % 100000);
  double t0 = now_s();
  (void)v.verify(relu, src, cached);
  double fresh = now_s() - t0;
  t0 = now_s();
  int hits = 20;
  for (int k = 0; k < hits; ++k) (void)v.verify(relu, src, cached);
  double hit = (now_s() - t0) / hits;
  std::cout << fmt::format("cache: hit {:.3f} ms vs fresh {:.0f} ms -> {:.5f}\n", hit * 1e3,
                           fresh * 1e3, hit / fresh);

  // 4. Pool throughput, 2 jobs against 1, on distinct sources (no cache).
  std::vector<std::pair<const TaskInfo*, std::string>> jobs;
  std::string mm_src = solution("matmul_square");
  for (int k = 0; k < 4; ++k) {
    jobs.emplace_back(&relu, variant(relu_src, 3000 + k));
    jobs.emplace_back(&mm, variant(mm_src, 3000 + k));
  }
  VerifyOptions popt = opt;
  popt.timing_budget_ms = 300;
  // 1 job, 2 jobs, 2 jobs, 1 job: a drift in the machine's load favours neither.
  double one = 0, two = 0;
  int feasible = 0;
  for (int n : {1, 2, 2, 1}) {
    for (auto& j : jobs) j.second += "// again\n";  // new sources: no cache, no shared library
    t0 = now_s();
    auto out = verify_all(v, jobs, popt, n);
    (n == 1 ? one : two) += now_s() - t0;
    for (const auto& o : out) feasible += o.feasible;
  }
  std::cout << fmt::format(
      "pool: {} verifications twice each way, 1 job {:.2f} s, 2 jobs {:.2f} s -> "
      "throughput x{:.2f} (aim >= 1.8; {} of {} feasible; load average {})\n",
      jobs.size(), one, two, one / two, feasible, 4 * jobs.size(), load_average());
  return 0;
}
