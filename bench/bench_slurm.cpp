// Benchmark of the `slurm` executor against `local` on the dev cluster (scripts/slurm-dev,
// started and stopped here). Not run by ctest. Prints ratios measured in the same run:
//   overhead    per candidate, end-to-end verify() time through Slurm (max in flight 1) against
//               the local Verifier on the same candidate: the cost of sbatch, scheduling, the
//               node process starting and polling. Median and spread over candidates x rounds.
//   throughput  candidates verified per second through Slurm with max in flight 1, 2, 4, against
//               local with 1 job.
// Usage: bench_slurm [--rounds N] [--max-elements N] (needs root and the Slurm packages)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "core/paths.h"
#include "core/workspace.h"
#include "dev_cluster.h"
#include "run/executor.h"
#include "run/slurm_executor.h"
#include "tasks/suite.h"

using namespace evk;
namespace fs = std::filesystem;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A unique comment defeats every verdict cache without changing the kernel.
std::string variant(const std::string& src, int k) {
  return src + "\n// variant " + std::to_string(k) + "\n";
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string spread(const std::vector<double>& v, const char* unit) {
  return fmt::format("median {:.3f}{} (IQR {:.3f}-{:.3f}, min {:.3f}, max {:.3f}, n={})",
                     quantile(v, 0.5), unit, quantile(v, 0.25), quantile(v, 0.75), quantile(v, 0),
                     quantile(v, 1), v.size());
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 2;
  int64_t max_elements = 65536;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--rounds") rounds = std::stoi(argv[i + 1]);
    if (a == "--max-elements") max_elements = std::stoll(argv[i + 1]);
  }
  if (std::string why = slurm_test::why_no_dev_cluster(); !why.empty()) {
    std::cerr << "bench_slurm: " << why << "\n";
    return 1;
  }
  fs::path root = fs::temp_directory_path() / ("evk-bench-slurm-" + std::to_string(::getpid()));
  fs::remove_all(root);
  slurm_test::DevCluster cluster;
  if (!cluster.ok()) {
    std::cerr << "bench_slurm: scripts/slurm-dev up failed:\n" << cluster.log();
    return 1;
  }
  int rc = 0;
  {
    Workspace ws(root / "ws");
    OracleOptions oo;
    oo.max_elements = max_elements;
    oo.timing_runs = 3;
    Verifier verifier(ws, oo);
    LocalExecutor local(verifier);
    Suite suite = load_suite(ws, "builtin:level1", max_elements);
    const std::vector<std::string> names = {"relu",    "sigmoid", "tanh",     "gelu",
                                            "softmax", "sum_dim", "mse_loss", "rms_norm"};
    std::vector<std::pair<const TaskInfo*, std::string>> cands;
    for (const auto& n : names)
      cands.emplace_back(&find_task(suite, n),
                         read_file(data_root() / "tests/corpus/cpu/solutions" / (n + ".cpp")));
    VerifyOptions opt;
    opt.backend = "cpu";
    opt.use_cache = false;
    opt.seeds = 2;
    opt.timing_budget_ms = 100;
    int k = 0;
    auto make_slurm = [&](int in_flight) {
      SlurmOptions so;
      so.workspace = ws.root();
      so.oracle = oo;
      so.max_in_flight = in_flight;
      so.poll_s = 0.1;
      so.node_scratch = root / "node";
      so.evokernel = self_exe_dir().parent_path() / "evokernel";  // the CLI nodes run
      return std::make_unique<SlurmExecutor>(so);
    };
    // Warm-up: references (shared), the node's peaks, page cache.
    for (const auto& [t, s] : cands) local.verify(*t, variant(s, k++), opt);
    make_slurm(4)->verify_batch({cands.front()}, opt);

    std::vector<double> ratio, extra_s, local_s, slurm_s;
    auto slurm1 = make_slurm(1);
    for (int r = 0; r < rounds; ++r)
      for (const auto& [t, s] : cands) {  // interleaved, so drift hits both alike
        double t0 = now_s();
        Verdict a = local.verify(*t, variant(s, k++), opt);
        double t1 = now_s();
        Verdict b = slurm1->verify(*t, variant(s, k++), opt);
        double t2 = now_s();
        if (a.category != b.category) {
          std::cerr << fmt::format("bench_slurm: {}: local {} but slurm {} ({})\n", t->id,
                                   category_name(a.category), category_name(b.category),
                                   b.feedback);
          rc = 1;
        }
        local_s.push_back(t1 - t0);
        slurm_s.push_back(t2 - t1);
        extra_s.push_back((t2 - t1) - (t1 - t0));
        ratio.push_back((t2 - t1) / (t1 - t0));
      }
    slurm1.reset();
    std::cout << "per-verification, same candidates (max in flight 1, poll 0.1 s):\n";
    std::cout << "  local         " << spread(local_s, " s") << "\n";
    std::cout << "  slurm         " << spread(slurm_s, " s") << "\n";
    std::cout << "  slurm - local " << spread(extra_s, " s") << "\n";
    std::cout << "  slurm / local " << spread(ratio, "x") << "\n";

    auto batch = [&](Executor& e) {
      VerifyWork work;
      for (const auto& [t, s] : cands) work.emplace_back(t, variant(s, k++));
      double t0 = now_s();
      auto out = e.verify_batch(work, opt);
      double dt = now_s() - t0;
      for (const auto& v : out)
        if (v.category != Category::Ok) {
          std::cerr << "bench_slurm: a solution was not feasible: " << v.category << " "
                    << v.feedback << "\n";
          rc = 1;
        }
      return static_cast<double>(work.size()) / dt;
    };
    double local1 = batch(local);
    std::cout << fmt::format("throughput, {} candidates per batch:\n", cands.size());
    std::cout << fmt::format("  local 1 job        {:.2f} verifications/s\n", local1);
    double first = 0;
    for (int m : {1, 2, 4}) {
      auto ex = make_slurm(m);
      double x = batch(*ex);
      if (m == 1) first = x;
      std::cout << fmt::format(
          "  slurm in flight {}  {:.2f} verifications/s  ({:.2f}x in flight 1, {:.2f}x local)\n", m,
          x, x / first, x / local1);
    }
  }
  fs::remove_all(root);
  return rc;
}
