// static_gate: what the static gates cost per candidate against the compile they guard (the
// named reference). Before compiling: `g++ -E -H` with the compile's flags and the scan of the
// preprocessed source (check_cpu_source); after: the symbol tables, the import allowlist and
// the load-time check (check_artifact; its one-time baseline build is paid once, before the
// loop). Over every kernel in tests/corpus/cpu/{solutions,honest}, REPS times each; prints the
// median and the spread (min..max) of each stage and of the ratio gate / compile.
//   static_gate [REPS]   (default 3)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "backends/backend.h"
#include "core/temp_dir.h"
#include "core/paths.h"

using namespace evk;
namespace fs = std::filesystem;

namespace {

struct Stats {
  double median, min, max;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

template <class F>
double seconds(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::stoi(argv[1]) : 3;
  auto cpu = make_backend("cpu");
  std::vector<fs::path> files;
  for (const char* kind : {"solutions", "honest"})
    for (const auto& e : fs::directory_iterator(data_root() / "tests" / "corpus" / "cpu" / kind))
      if (e.path().extension() == ".cpp") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  {  // the one-time baseline libraries of the load-time check
    TempDir warm("evk-scratch-");
    CompileResult r = cpu->compile(read_file(files.front()), warm.path(), 120);
    if (r.ok) (void)cpu->check_artifact(r.artifact);
  }
  std::vector<double> pre, compile, post, ratio;
  int rejected = 0;
  for (int rep = 0; rep < reps; ++rep)
    for (const auto& f : files) {
      std::string src = read_file(f);
      TempDir dir("evk-scratch-");
      bool bad = false;
      CompileResult r;
      double a = seconds([&] { bad = cpu->static_check(src).has_value(); });
      double b = seconds([&] { r = cpu->compile(src, dir.path(), 120); });
      double c = seconds([&] { bad = bad || !r.ok || cpu->check_artifact(r.artifact).has_value(); });
      rejected += bad;
      pre.push_back(a);
      compile.push_back(b);
      post.push_back(c);
      ratio.push_back((a + c) / b);
    }
  auto show = [](const char* name, const Stats& s, const char* unit, double scale) {
    fmt::print("{:<34} median {:8.3f} {}  (min {:.3f}, max {:.3f})\n", name, s.median * scale,
               unit, s.min * scale, s.max * scale);
  };
  fmt::print("static gate cost over {} CPU corpus kernels x {} reps (reference: the compile)\n",
             files.size(), reps);
  show("source gate (g++ -E + scan)", stats(pre), "ms", 1e3);
  show("compile (g++ -O3, the reference)", stats(compile), "ms", 1e3);
  show("library gate (ELF: symbols, imports)", stats(post), "ms", 1e3);
  show("ratio (source + library) / compile", stats(ratio), "x ", 1);
  if (rejected) fmt::print("WARNING: {} runs of honest kernels were rejected\n", rejected);
  return rejected ? 1 : 0;
}
