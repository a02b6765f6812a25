// ascendc_cost_model: the emulated AI Core's cycle model against itself, and what a verdict
// costs. Three operators from tests/corpus/ascendc/solutions (relu: elementwise, softmax: row
// reduction, matmul_square: cube), each swept over one knob at a time through the real
// verifier and runner: double buffering (1 or 2 buffers), core count, tile size. Cycles are
// deterministic, so each point is one verification. Then the wall time of verifying one
// candidate (cache off), ascendc against the cpu backend on the same task, as medians and
// IQRs over --reps runs.
//   ascendc_cost_model [--reps N] [--max-elements N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/error.h"
#include "core/paths.h"
#include "core/workspace.h"
#include "tasks/oracle.h"
#include "tasks/suite.h"
#include "verify/verifier.h"

namespace {
using namespace evk;
namespace fs = std::filesystem;

std::string solution(const std::string& backend, const std::string& name) {
  return read_file(data_root() / "tests" / "corpus" / backend / "solutions" / (name + ".cpp"));
}

std::string with(std::string s, const std::string& from, const std::string& to) {
  size_t k = s.find(from);
  if (k == std::string::npos) throw Error("bench variant: '" + from + "' not in the kernel");
  s.replace(k, from.size(), to);
  return s;
}

struct Point {
  std::string label;
  std::string source;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    int reps = 5;
    int64_t max_elements = 1 << 20;
    for (int i = 1; i + 1 < argc; i += 2) {
      if (!std::strcmp(argv[i], "--reps")) reps = std::stoi(argv[i + 1]);
      if (!std::strcmp(argv[i], "--max-elements")) max_elements = std::stoll(argv[i + 1]);
    }
    Workspace ws(fs::temp_directory_path() / "evk-bench-ascendc-ws");
    OracleOptions oo;
    oo.max_elements = max_elements;
    oo.timing_runs = 3;
    Verifier verifier(ws, oo);
    Suite l1 = load_suite(ws, "builtin:level1", max_elements);
    VerifyOptions vo;
    vo.backend = "ascendc";
    vo.use_cache = false;
    vo.seeds = 2;

    auto run = [&](const std::string& task, const std::vector<Point>& pts) {
      const TaskInfo& t = find_task(l1, task);
      double base = 0;
      for (const auto& p : pts) {
        Verdict v = verifier.verify(t, p.source, vo);
        if (!v.feasible) {
          fmt::print("  {:<38} {}: {}\n", p.label, category_name(v.category),
                     v.feedback.substr(0, 160));
          continue;
        }
        double c = v.metrics["modeled"].value("cycles", 0.0);
        if (base == 0) base = c;
        fmt::print("  {:<38} {:>12.0f} cycles {:>9.4f} ms  x{:.2f} vs first  eager {:.4f} ms\n",
                   p.label, c, v.latency_ms, base / c, v.eager_ms);
      }
    };

    std::string relu = solution("ascendc", "relu");
    const std::string tile = "t.tile = t.perCore < 8192 ? t.perCore : 8192;";
    fmt::print("relu ({} elements max): double buffering, cores, tile\n", max_elements);
    run("relu",
        {{"2 buffers, 24 cores, tile 8192", relu},
         {"1 buffer", with(relu, "BUFFER_NUM = 2;", "BUFFER_NUM = 1;")},
         {"2 buffers, tile 1024",
          with(relu, tile, "t.tile = t.perCore < 1024 ? t.perCore : 1024;")},
         {"1 buffer, tile 1024",
          with(with(relu, tile, "t.tile = t.perCore < 1024 ? t.perCore : 1024;"), "BUFFER_NUM = 2;",
               "BUFFER_NUM = 1;")},
         {"tile 256", with(relu, tile, "t.tile = t.perCore < 256 ? t.perCore : 256;")},
         {"tile 64", with(relu, tile, "t.tile = t.perCore < 64 ? t.perCore : 64;")},
         {"1 core", with(relu, "uint32_t blocks = 24;", "uint32_t blocks = 1;")},
         {"4 cores", with(relu, "uint32_t blocks = 24;", "uint32_t blocks = 4;")},
         {"8 cores", with(relu, "uint32_t blocks = 24;", "uint32_t blocks = 8;")},
         {"48 blocks (2 waves)", with(relu, "uint32_t blocks = 24;", "uint32_t blocks = 48;")},
         {"scalar loop instead of Relu",
          with(relu, "    Relu(y, x, static_cast<int32_t>((n + 7) / 8 * 8));",
               "    for (uint32_t i = 0; i < n; ++i) {\n      float v = x.GetValue(i);\n      "
               "y.SetValue(i, v < 0.0f ? 0.0f : v);\n    }")}});

    std::string sm = solution("ascendc", "softmax");
    fmt::print("softmax: double buffering, cores\n");
    run("softmax", {{"2 buffers, 24 cores", sm},
                    {"1 buffer", with(sm, "BUFFER_NUM = 2;", "BUFFER_NUM = 1;")},
                    {"4 cores", with(sm, "uint32_t blocks = t.rows < 24 ? t.rows : 24;",
                                     "uint32_t blocks = t.rows < 4 ? t.rows : 4;")},
                    {"1 core", with(sm, "uint32_t blocks = t.rows < 24 ? t.rows : 24;",
                                    "uint32_t blocks = 1;")}});

    std::string mm = solution("ascendc", "matmul_square");
    fmt::print("matmul_square: cores, base tile\n");
    run("matmul_square",
        {{"24 cores, default base tile", mm},
         {"8 cores", with(mm, "tiler.SetDim(24);", "tiler.SetDim(8);")},
         {"1 core", with(mm, "tiler.SetDim(24);", "tiler.SetDim(1);")},
         {"base 32x32x32", with(mm, "tiler.SetBias(false);",
                                "tiler.SetBias(false);\n  tiler.SetFixSplit(32, 32, 32);")},
         {"base 64x64x64", with(mm, "tiler.SetBias(false);",
                                "tiler.SetBias(false);\n  tiler.SetFixSplit(64, 64, 64);")}});

    // Verification wall time per candidate.
    fmt::print("verification wall time per candidate (relu, cache off, {} runs)\n", reps);
    for (const std::string backend : {"cpu", "ascendc"}) {
      VerifyOptions o = vo;
      o.backend = backend;
      o.seeds = 3;
      std::string src = solution(backend, "relu");
      std::vector<double> s;
      for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        Verdict v = verifier.verify(find_task(l1, "relu"), src, o);
        s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (!v.feasible) fmt::print("  {}: {}\n", backend, v.feedback.substr(0, 200));
      }
      std::sort(s.begin(), s.end());
      fmt::print("  {:<8} median {:.3f} s  IQR {:.3f} s  (min {:.3f}, max {:.3f})\n", backend,
                 s[s.size() / 2], s[(3 * s.size()) / 4] - s[s.size() / 4], s.front(), s.back());
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ascendc_cost_model: {}\n", e.what());
    return 1;
  }
}
