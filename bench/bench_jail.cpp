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
#include "verify/temp_dir.h"

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
    if (!rb.ok() || !rj.ok())
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

    // A relu job for the runner, as the verifier would start it (minus the CPU lease).
    TempDir dir("evk-bench-jail-");
    fs::path src = dir.path() / "kernel.cpp", lib = dir.path() / "kernel.so";
    write_file_atomic(src, R"(#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = (const float*)in[0].data; float* y = (float*)out[0].data;
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] > 0 ? x[i] : 0;
  return 0;
})");
    std::string inc = "-I" + (data_root() / "knowledge" / "cpu").string();
    ProcessResult cr = run_process({"g++", "-std=c++17", "-O2", "-fopenmp", "-shared", "-fPIC", inc,
                                    "-o", lib.string(), src.string()});
    if (!cr.ok()) throw Error("g++: " + cr.err);
    RunnerJob job;
    for (int s = 0; s < 2; ++s) {
      SafetensorsFile f;
      Tensor t;
      t.shape = {4096};
      t.data.resize(4096 * 4);
      for (int64_t i = 0; i < 4096; ++i) {
        float v = static_cast<float>((i * 7919 + s * 104729) % 2001 - 1000) / 100.0f;
        std::memcpy(t.data.data() + 4 * i, &v, 4);
      }
      f.tensors["in.0"] = t;
      fs::path p = dir.path() / ("seed" + std::to_string(s) + ".safetensors");
      write_safetensors(p, f);
      job.seed_files.push_back(p.string());
    }
    job.library = lib.string();
    job.abi = {"in.0"};
    job.outputs = {{"out.0", DType::F32, {4096}}};
    job.outputs_path = (dir.path() / "outputs.bin").string();
    job.timing_budget_ms = 20;
    ProcessOptions o;
    o.cwd = dir.path().string();
    o.clear_env = true;
    o.env["OMP_NUM_THREADS"] = "1";
    o.stdin_data = to_json(job).dump();
    o.cpus = {0};
    fs::path exe = fs::canonical(runner_path());
    JailSpec spec;
    spec.binds = {{exe.string(), false}, {dir.path().string(), true}};
    write_file_atomic(job.outputs_path, "");  // made now, so it belongs to the jail below
    if (::geteuid() == 0) {  // the jail's identity must reach the folder (as runner_client does)
      ::lchown(dir.path().c_str(), jail_outer_uid(), jail_outer_gid());
      for (const auto& e : fs::recursive_directory_iterator(dir.path()))
        ::lchown(e.path().c_str(), jail_outer_uid(), jail_outer_gid());
    }
    compare("runner", {exe.string()}, o, spec, runs);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_jail: {}\n", e.what());
    return 1;
  }
}
