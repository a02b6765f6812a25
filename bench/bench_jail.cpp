// The jail's cost (not run by ctest): start-to-exit wall time of a child process, bare against
// jailed (core/jail.h), alternating in one run so that machine noise hits both alike.
//   true    /bin/true: the jail's own cost (namespaces, view, two extra processes)
//   runner  evk-runner on a relu job of 4096 elements (20 ms timing budget): what a
//           verification pays, jailed (with Landlock and the filter) against bare
// Prints medians and interquartile ranges, and the jailed/bare ratio of the medians.
// Usage: bench_jail [--runs N]
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/jail.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/tensor.h"
#include "verify/runner_protocol.h"
#include "core/temp_dir.h"

using namespace evk;
namespace fs = std::filesystem;

namespace {

struct Stats {
  double median, iqr;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))]; };
  return {at(0.5), at(0.75) - at(0.25)};
}

void compare(const std::string& what, const std::vector<std::string>& argv, ProcessOptions bare,
             const JailSpec& spec, int runs) {
  ProcessOptions jailed = bare;
  jailed.jail = spec;
  std::vector<double> b, j;
  for (int k = 0; k < runs; ++k) {
    ProcessResult rb = run_process(argv, bare);
    ProcessResult rj = run_process(argv, jailed);
    if (rb.timed_out || rb.term_signal || rb.exit_code != rj.exit_code || rj.term_signal)
      throw Error(what + ": bare " + rb.describe() + " " + rb.err + ", jailed " + rj.describe() +
                  " " + rj.err);
    b.push_back(rb.wall_s * 1e3);
    j.push_back(rj.wall_s * 1e3);
  }
  Stats sb = stats(b), sj = stats(j);
  fmt::print(
      "{:<7} bare {:7.2f} ms (IQR {:5.2f})  jailed {:7.2f} ms (IQR {:5.2f})  "
      "jailed/bare {:.2f}x  (+{:.2f} ms), {} runs each\n",
      what, sb.median, sb.iqr, sj.median, sj.iqr, sj.median / sb.median, sj.median - sb.median,
      runs);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 30;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--runs") runs = std::stoi(argv[i + 1]);
  try {
    if (std::string why = jail_unavailable(); !why.empty()) {
      fmt::print("no jail on this machine: {}\n", why);
      return 1;
    }
    compare("true", {"/bin/true"}, {}, {}, runs);

    // The runner's own start (exec, dynamic loading, argument parsing) as the verifier pins
    // and jails it; the job protocol itself is measured by bench_verify.
    ProcessOptions o;
    o.clear_env = true;
    o.cpus = {0};
    fs::path exe = fs::canonical(runner_path());
    JailSpec spec;
    spec.binds = {{exe.string(), false}};
    compare("runner start", {exe.string(), "--usage"}, o, spec, runs);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_jail: {}\n", e.what());
    return 1;
  }
}
