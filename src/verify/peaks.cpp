#include "verify/peaks.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/cpu_lease.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"
#include "verify/verdict_cache.h"

namespace evk {
namespace {

// The ladder's working-set sizes (runner/peaks.cpp measures the same ones).
constexpr int64_t kL1 = 16 << 10, kL2 = 512 << 10, kL3 = 8 << 20, kDram = 256ll << 20;

// The FMA loop's version (runner/peaks.cpp): figures stored by an older one are measured
// again. 2: accumulators that fit 16 registers (version 1 spilled on AVX2, 2.3 GFLOP/s on a
// core where OpenBLAS reached 87).
constexpr int kFmaLoop = 2;

// A level not measured (older stored figures, a device's peaks) falls back to the next
// larger one: slower, so a floor stays safe.
double level(const MachinePeaks& p, int i) {
  const double r[4] = {p.l1_gbps, p.l2_gbps, p.l3_gbps, p.gbps};
  for (int k = i; k < 4; ++k)
    if (r[k] > 0) return r[k];
  return 0;
}

MachinePeaks from_json(const nlohmann::json& j, int threads) {
  MachinePeaks p;
  p.gbps = j.value("gbps", 0.0);
  p.l3_gbps = j.value("l3_gbps", 0.0);
  p.l2_gbps = j.value("l2_gbps", 0.0);
  p.l1_gbps = j.value("l1_gbps", 0.0);
  p.gflops = j.value("gflops", 0.0);
  p.threads = threads;
  if (j.contains("spread") && j["spread"].is_object()) {
    p.gbps_spread = j["spread"].value("gbps", 0.0);
    p.gflops_spread = j["spread"].value("gflops", 0.0);
  }
  p.samples = j.value("samples", 0);
  p.measurements = j.value("measurements", 1);
  return p;
}

nlohmann::json to_json(const MachinePeaks& p) {
  return {
      {"gbps", p.gbps},       {"l3_gbps", p.l3_gbps},
      {"l2_gbps", p.l2_gbps}, {"l1_gbps", p.l1_gbps},
      {"gflops", p.gflops},   {"threads", p.threads},
      {"samples", p.samples}, {"measurements", p.measurements},
      {"fma_loop", kFmaLoop}, {"spread", {{"gbps", p.gbps_spread}, {"gflops", p.gflops_spread}}}};
}

MachinePeaks measure(int threads) {
  ProcessOptions o;
  o.timeout_s = 300;
  CpuLease lease(threads);  // pinned, on the CPUs this process's other children use least
  o.cpus = lease.cpus();
  ProcessResult r = run_process(
      {runner_path().string(), "--measure-peaks", "--threads", std::to_string(threads)}, o);
  if (!r.ok())
    throw Error("measuring the machine's peaks failed (run `evokernel doctor`): evk-runner " +
                r.describe() + ": " + r.err);
  auto j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  MachinePeaks p = from_json(j, threads);
  p.measurements = 1;
  return p;
}

}  // namespace

double MachinePeaks::floor_bandwidth(int64_t bytes) const {
  int i = bytes >= kDram ? 3 : bytes >= kL3 ? 2 : bytes >= kL2 ? 1 : 0;
  return level(*this, i);
}

double MachinePeaks::roofline_bandwidth(int64_t bytes) const {
  int i = bytes <= kL1 ? 0 : bytes <= kL2 ? 1 : bytes <= kL3 ? 2 : 3;
  return level(*this, i);
}

RooflineFloors roofline_floors(const MachinePeaks& p, int64_t bytes, int64_t flops) {
  double bw = p.floor_bandwidth(bytes);
  return {bw > 0 ? static_cast<double>(bytes) / (bw * 1e6) : 0,
          p.gflops > 0 ? static_cast<double>(flops) / (p.gflops * 1e6) : 0};
}

double roofline_fraction(const MachinePeaks& p, int64_t bytes, int64_t flops, double median_ms) {
  double bw = p.roofline_bandwidth(bytes);
  double attainable = std::max(bw > 0 ? static_cast<double>(bytes) / (bw * 1e6) : 0,
                               p.gflops > 0 ? static_cast<double>(flops) / (p.gflops * 1e6) : 0);
  return median_ms > 0 ? attainable / median_ms : 0;
}

std::string MachinePeaks::describe() const {
  return fmt::format(
      "{} thread(s): DRAM {:.1f} GB/s (best/median {:.3f}), 8 MiB {:.1f}, 512 KiB {:.1f}, "
      "16 KiB {:.1f} GB/s; FMA {:.1f} GFLOP/s (best/median {:.3f}); {} samples each, "
      "{} measurement(s) merged",
      threads, gbps, gbps_spread, l3_gbps, l2_gbps, l1_gbps, gflops, gflops_spread, samples,
      measurements);
}

MachinePeaks merge_peaks(const MachinePeaks& a, const MachinePeaks& b) {
  MachinePeaks m = b;
  m.gbps = std::max(a.gbps, b.gbps);
  m.l3_gbps = std::max(a.l3_gbps, b.l3_gbps);
  m.l2_gbps = std::max(a.l2_gbps, b.l2_gbps);
  m.l1_gbps = std::max(a.l1_gbps, b.l1_gbps);
  m.gflops = std::max(a.gflops, b.gflops);
  m.measurements = a.measurements + b.measurements;
  return m;
}

void store_peaks(Workspace& ws, const MachinePeaks& p) {
  migrate_verify_schema(ws);
  auto s = ws.db().prepare("INSERT OR REPLACE INTO verify_peaks (threads, peaks) VALUES (?, ?)");
  s.bind(1, p.threads).bind(2, to_json(p).dump()).run();
}

MachinePeaks machine_peaks(Workspace& ws, int threads, bool remeasure) {
  migrate_verify_schema(ws);
  nlohmann::json j;
  {
    auto s = ws.db().prepare("SELECT peaks FROM verify_peaks WHERE threads = ?");
    s.bind(1, threads);
    if (s.step()) j = nlohmann::json::parse(s.text(0), nullptr, false);
  }
  bool stored = !j.is_discarded() && j.is_object();
  bool current = stored && j.value("fma_loop", 1) == kFmaLoop;
  if (current && !remeasure) return from_json(j, threads);
  MachinePeaks p = measure(threads);
  if (stored) p = merge_peaks(from_json(j, threads), p);
  store_peaks(ws, p);
  return p;
}

}  // namespace evk
