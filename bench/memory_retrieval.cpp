// Memory bank benchmark: retrieval latency (median, p99) at 1k, 10k and 100k items against a
// plain exact brute-force scan in the same run, insertion throughput, database size per 10k
// items. Synthetic items look like kernel traces: code lines over a skewed vocabulary of
// identifiers, op names and error categories, spread over 60 tasks.
//
// Usage: memory_retrieval [max_items=100000] [queries=200]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <ctime>

#include "core/workspace.h"
#include "memory/memory.h"

using namespace evk;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// CPU time of this thread: on a shared, loaded machine it shows the work, not the queue.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

const std::vector<std::string> kOps = {
    "relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "layer_norm",
    "batch_norm", "conv2d", "conv_transpose2d", "matmul", "bmm", "linear", "max_pool2d",
    "avg_pool2d", "sum", "mean", "argmax", "cumsum", "hardswish", "elu", "mish", "softplus"};
const std::vector<std::string> kCategories = {"ok", "compile", "mismatch", "runtime_crash",
                                              "timeout", "wrong_shape", "hack_static"};

struct Generator {
  std::mt19937_64 rng{12345};
  std::vector<std::string> vocab;
  Generator() {
    const char* syl[] = {"acc", "tile", "blk", "row", "col", "idx", "ptr", "buf", "sum", "max",
                         "val", "out", "in", "stride", "off", "lane", "vec", "mask", "norm", "exp",
                         "load", "store", "pack", "unroll", "chunk", "base", "lim", "tmp", "w", "h"};
    for (int i = 0; i < 6000; ++i) {
      std::string a = syl[rng() % 30], b = syl[rng() % 30];
      vocab.push_back(i % 2 ? a + "_" + b + std::to_string(i % 97) : a + char(toupper(b[0])) + b.substr(1) + std::to_string(i % 89));
    }
  }
  const std::string& word() {  // skewed: a few identifiers are everywhere, most are rare
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    return vocab[static_cast<size_t>(u * u * u * double(vocab.size() - 1))];
  }
  std::string code(const std::string& op, int lines) {
    std::string s = "#include \"evokernel/kernel_abi.h\"\n// " + op + " kernel\n";
    for (int l = 0; l < lines; ++l)
      s += fmt::format("  {} = {}[{}] * {} + {}({});\n", word(), word(), word(), word(), op, word());
    return s;
  }
  Item item(int i) {
    Item it;
    int task = static_cast<int>(rng() % 60);
    const std::string& op = kOps[static_cast<size_t>(task) % kOps.size()];
    const std::string& cat = kCategories[rng() % kCategories.size()];
    int kind = static_cast<int>(rng() % 10);
    it.kind = kind < 7 ? ItemKind::Trace : kind < 9 ? ItemKind::Experience : ItemKind::BestPractice;
    it.origin_task = fmt::format("task{}_{}", task, op);
    it.title = fmt::format("{}: attempt {} ({})", it.origin_task, i, cat);
    it.tags = {op, cat};
    it.code = code(op, 25);
    it.body = fmt::format("Attempt on {} failed at {}: {} {} {}", it.origin_task, cat, word(), word(), word());
    it.feedback = cat == "ok" ? "" : fmt::format("error: {} was not declared; {} mismatch", word(), word());
    it.feasible = cat == "ok";
    return it;
  }
  MemoryQuery query() {
    MemoryQuery q;
    const std::string& op = kOps[rng() % kOps.size()];
    q.text = "class Model(nn.Module):\n  def forward(self, x):\n    return torch." + op + "(x)\n" +
             code(op, 6);
    q.op_names = {op};
    q.error_category = kCategories[rng() % kCategories.size()];
    return q;
  }
};

struct Percentiles {
  double median, p99;
};
Percentiles percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, static_cast<size_t>(double(v.size()) * 0.99))]};
}

uint64_t db_bytes(Workspace& ws) {
  ws.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  uint64_t n = fs::file_size(ws.db_path());
  fs::path wal = ws.db_path().string() + "-wal";
  if (fs::exists(wal)) n += fs::file_size(wal);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  size_t max_items = argc > 1 ? std::stoul(argv[1]) : 100000;
  size_t queries = argc > 2 ? std::stoul(argv[2]) : 200;
  // EVK_BENCH_DIR keeps the bank between runs (for profiling); else a temporary folder.
  const char* keep = std::getenv("EVK_BENCH_DIR");
  std::string tmpl = (fs::temp_directory_path() / "evk-bench-memory-XXXXXX").string();
  fs::path dir = keep ? fs::path(keep) : fs::path(mkdtemp(tmpl.data()));
  Generator gen;
  MemoryParams p;
  p.auto_seed = false;

  std::vector<MemoryQuery> qs;
  for (size_t i = 0; i < queries; ++i) qs.push_back(gen.query());

  fmt::print("# memory bank benchmark ({} queries per size, N={} K={})\n", queries, p.n,
             static_cast<int>(p.lambda * p.n));
  size_t have = 0;
  int next = 0;
  {
    Workspace ws(dir);
    Memory m(ws, p);
    for (size_t target : {size_t{1000}, size_t{10000}, size_t{100000}}) {
      if (target > max_items) break;
      auto t0 = Clock::now();
      size_t added_here = target - have;
      have = m.size();
      if (have >= target) {
        fmt::print("reusing the bank in {} ({} items)\n", dir.string(), have);
      } else if (target <= 10000) {  // one transaction per add, dedup check included
        while (have < target) {
          m.add(gen.item(next++));
          have = m.size();
        }
        double s = ms_since(t0) / 1000;
        fmt::print("insert (add, one transaction each) up to {:>6}: {:.0f} items/s\n", target,
                   double(added_here) / s);
      } else {  // bulk: import of a JSON Lines file, one transaction
        fs::path f = dir / "bulk.jsonl";
        {
          std::ofstream out(f);
          for (size_t i = have; i < target; ++i)
            out << nlohmann::json{{"item", to_json(gen.item(next++))}}.dump() << "\n";
        }
        t0 = Clock::now();
        m.import_jsonl(f, {});
        have = m.size();
        fmt::print("insert (import, one transaction) up to {:>6}: {:.0f} items/s\n", target,
                   double(added_here) / (ms_since(t0) / 1000));
      }
      fmt::print("database size: {:.1f} MiB per 10k items ({} items)\n",
                 double(db_bytes(ws)) / double(have) * 10000 / (1 << 20), have);

      // Reopen, as a new process would: loading the index is part of the cost.
      auto t1 = Clock::now();
      Memory fresh(ws, p);
      (void)fresh.index();
      double open_ms = ms_since(t1);
      fresh.retrieve(qs[0], Stage::Draft, 0);  // builds the dense projections
      double first_ms = ms_since(t1) - open_ms;

      std::vector<double> full, full_cpu, fast, brute;
      double agree = 0;
      size_t k = static_cast<size_t>(p.lambda * p.n);
      for (size_t i = 0; i < qs.size(); ++i) {
        auto t = Clock::now();
        double c0 = cpu_ms();
        auto r = fresh.retrieve(qs[i], Stage::Draft, i);
        full_cpu.push_back(cpu_ms() - c0);
        full.push_back(ms_since(t));
        TermVector qv = fresh.query_terms(qs[i]);
        SimilarityIndex::Filter f{"cpu", {ItemKind::Experience, ItemKind::Trace, ItemKind::BestPractice}, ""};
        t = Clock::now();
        auto a = fresh.index().top(qv, f, k);
        fast.push_back(ms_since(t));
        if (i < 20) {  // the plain scan is slow at 100k: a sample is enough for its median
          t = Clock::now();
          auto b = fresh.index().brute_force_top(qv, f, k);
          brute.push_back(ms_since(t));
          for (const auto& h : b)
            agree += double(std::count_if(a.begin(), a.end(), [&](auto x) { return x.id == h.id; })) / double(b.size());
        }
      }
      auto pf = percentiles(full), pc = percentiles(full_cpu), pa = percentiles(fast),
           pb = percentiles(brute);
      fmt::print("{:>6} items: retrieve CPU time median {:.3f} ms p99 {:.3f} ms\n", have,
                 pc.median, pc.p99);
      fmt::print(
          "{:>6} items: retrieve (value policy, items loaded) median {:.3f} ms p99 {:.3f} ms | "
          "recall phase: index {:.3f} / {:.3f} ms, brute-force exact scan {:.3f} / {:.3f} ms "
          "({:.1f}x faster), top-{} overlap with exact {:.1f}% | open {:.0f} ms, first query {:.0f} ms\n",
          have, pf.median, pf.p99, pa.median, pa.p99, pb.median, pb.p99, pb.median / pa.median, k,
          100 * agree / double(brute.size()), open_ms, first_ms);
    }
  }
  if (!keep) fs::remove_all(dir);
  return 0;
}
