#include "verify/diagnose.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <regex>
#include <sstream>

#include "backends/ascendc/npu_constants.h"

namespace evk {
using nlohmann::json;

namespace {

// Thresholds of the named bound (shares of the slowest core's span, or of the latency).
constexpr double kLaunchShare = 0.5;     // 2+ launches' fixed cost at least half the time
constexpr double kImbalance = 1.5;       // slowest core at least 1.5x the mean
constexpr double kPipeBound = 0.6;       // one pipe busy at least 60% of the span
constexpr double kSerialisedSum = 0.85;  // the pipes' shares add up to (almost) the span

struct PipeName {
  const char* key;  // in the runner's JSON
  const char* shown;
  Bound bound;
};
constexpr std::array<PipeName, 5> kPipes = {{{"mte2", "MTE2 (copy in)", Bound::Mte2},
                                             {"vector", "vector", Bound::Vector},
                                             {"cube", "cube", Bound::Cube},
                                             {"mte3", "MTE3 (copy out)", Bound::Mte3},
                                             {"scalar", "scalar", Bound::Scalar}}};

// The launches' sums: busy cycles per pipe on each launch's slowest core, span, mean core.
struct ModeledTotals {
  std::array<double, kPipes.size()> busy{};
  double span = 0, mean_core = 0;
  uint32_t launches = 0, min_dim = UINT32_MAX, ub_peak = 0, queues = 0, single = 0;
  bool has_pipes = true;
};

ModeledTotals sum_launches(const json& modeled) {
  ModeledTotals t;
  for (const auto& l : modeled.value("launches", json::array())) {
    ++t.launches;
    t.span += l.value("cycles", 0.0);
    t.min_dim = std::min(t.min_dim, l.value("block_dim", 0u));
    if (!l.contains("pipes") || !l["pipes"].is_object()) {
      t.has_pipes = false;
      continue;
    }
    const json& p = l["pipes"];
    const json busy = p.value("busy", json::object());
    for (size_t i = 0; i < kPipes.size(); ++i) t.busy[i] += busy.value(kPipes[i].key, 0.0);
    t.mean_core += p.value("mean_core", 0.0);
    t.ub_peak = std::max(t.ub_peak, p.value("ub_peak", 0u));
    t.queues = std::max(t.queues, p.value("queues", 0u));
    t.single = std::max(t.single, p.value("single_buffered", 0u));
  }
  return t;
}

Bound modeled_bound(const ModeledTotals& t, double launch_share, size_t top, double top_share,
                    double sum_share) {
  // One launch's fixed cost cannot be removed: then it is a fact, and the bound is inside it.
  if (t.launches > 1 && launch_share >= kLaunchShare) return Bound::Launch;
  if (t.mean_core > 0 && t.span / t.mean_core >= kImbalance) return Bound::Imbalance;
  if (top_share >= kPipeBound) return kPipes[top].bound;
  if (sum_share >= kSerialisedSum) return Bound::Serialised;
  return kPipes[top].bound;
}

std::string pct(double x) {
  return fmt::format("{:.0f}%", 100 * x);
}

}  // namespace

Diagnosis diagnose_modeled(const json& modeled) {
  Diagnosis d;
  d.basis = "cost model";
  const ModeledTotals t = sum_launches(modeled);
  if (t.launches == 0 || t.span <= 0 || !t.has_pipes) {
    d.facts.push_back("the cost model reported no per-pipe figures for this kernel");
    return d;
  }
  const double ghz = modeled.value("clock_ghz", npu::kClockGHz);
  const double launch_us = modeled.value("launch_us", npu::kLaunchUs);
  const double kernel_us = t.span / (ghz * 1e3), fixed_us = t.launches * launch_us;
  const double launch_share = fixed_us / (kernel_us + fixed_us);
  std::array<double, kPipes.size()> share{};
  size_t top = 0;
  double sum = 0;
  for (size_t i = 0; i < kPipes.size(); ++i) {
    share[i] = t.busy[i] / t.span;
    if (share[i] > share[top]) top = i;
    if (kPipes[i].bound != Bound::Scalar) sum += share[i];
  }
  d.bound = modeled_bound(t, launch_share, top, share[top], sum);
  std::string busy;
  for (size_t i = 0; i < kPipes.size(); ++i)
    busy += fmt::format("{}{} {}", busy.empty() ? "" : ", ", kPipes[i].shown, pct(share[i]));
  d.facts.push_back(
      fmt::format("busy share of the slowest core's {:.0f} cycles: {}", t.span, busy));
  std::string idle;
  for (size_t i = 0; i < kPipes.size(); ++i)
    if (i != top && t.busy[i] > 0 && kPipes[i].bound != Bound::Scalar)
      idle +=
          fmt::format("{}{} idle {}", idle.empty() ? "" : ", ", kPipes[i].shown, pct(1 - share[i]));
  if (!idle.empty()) d.facts.push_back(fmt::format("while {} works, {}", kPipes[top].shown, idle));
  if (t.single > 0)
    d.facts.push_back(
        fmt::format("{} of {} queue(s) have one buffer: copy and compute on them cannot overlap",
                    t.single, t.queues));
  d.facts.push_back(fmt::format("{} launch(es): fixed cost {:.0f} us = {} of the modeled time",
                                t.launches, fixed_us, pct(launch_share)));
  if (t.mean_core > 0)
    d.facts.push_back(
        fmt::format("slowest core {:.0f} cycles vs mean {:.0f} ({:.2f}x){}", t.span, t.mean_core,
                    t.span / t.mean_core,
                    t.min_dim < npu::kCores
                        ? fmt::format("; blockDim {} of {} AI Cores", t.min_dim, npu::kCores)
                        : ""));
  d.facts.push_back(fmt::format("Unified Buffer: {:.1f} of {:.0f} KiB reserved per block",
                                t.ub_peak / 1024.0, npu::kUbBytes / 1024.0));
  d.figures = {{"span_cycles", t.span},       {"mean_core_cycles", t.mean_core},
               {"launches", t.launches},      {"launch_share", launch_share},
               {"ub_peak", t.ub_peak},        {"queues", t.queues},
               {"single_buffered", t.single}, {"pipe_share", json::object()}};
  for (size_t i = 0; i < kPipes.size(); ++i) d.figures["pipe_share"][kPipes[i].key] = share[i];
  return d;
}

namespace {

// CUDA: the ptxas report's worst kernel (compile notes, backends/cuda/ptxas_report.h):
// registers limit the resident threads per SM (64K registers, at most 2048 threads).
void add_ptxas_facts(Diagnosis& d, const std::string& notes) {
  static const std::regex line(R"((.*): (-?\d+) registers, (\d+) B smem, (\d+) B stack, (.*))");
  std::istringstream in(notes);
  std::string l;
  while (std::getline(in, l)) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    long regs = std::stol(m[2].str());
    double occ = regs > 0 ? std::min(1.0, 65536.0 / static_cast<double>(regs) / 2048.0) : 1.0;
    bool spills = m[5].str().rfind("SPILLS", 0) == 0;
    d.facts.push_back(
        fmt::format("{}: {} registers (occupancy at most {} by registers), {} B "
                    "shared memory, {}",
                    m[1].str(), regs, pct(occ), m[3].str(),
                    spills ? "spills to local memory: " + m[5].str() : "no spills"));
    d.figures["ptxas"].push_back({{"kernel", m[1].str()},
                                  {"registers", regs},
                                  {"occupancy_by_registers", occ},
                                  {"smem", std::stol(m[3].str())},
                                  {"spills", spills}});
  }
}

}  // namespace

Diagnosis diagnose_roofline(const DiagnoseInputs& in) {
  Diagnosis d;
  d.basis = "roofline";
  const double bw = in.peaks.roofline_bandwidth(in.bytes), fl = in.peaks.gflops;
  const double sec = in.median_ms * 1e-3;
  if (sec <= 0 || (bw <= 0 && fl <= 0)) {
    d.facts.push_back("no peaks known to judge the latency against");
    return d;
  }
  const double gbps = static_cast<double>(in.bytes) / sec / 1e9;
  const double gflops = static_cast<double>(in.flops) / sec / 1e9;
  const double mem_use = bw > 0 ? gbps / bw : 0, comp_use = fl > 0 ? gflops / fl : 0;
  const double mem_ms = bw > 0 ? static_cast<double>(in.bytes) / (bw * 1e6) : 0;
  const double comp_ms = fl > 0 ? static_cast<double>(in.flops) / (fl * 1e6) : 0;
  // The resource the kernel uses the larger share of is the one it runs into first.
  d.bound = mem_use >= comp_use ? Bound::Memory : Bound::Compute;
  d.facts.push_back(fmt::format(
      "memory: {:.1f} GB/s of {:.1f} GB/s peak{} ({}); compute: {:.2f} of {:.1f} GFLOP/s ({})",
      gbps, bw, in.device_peaks ? "" : " at this working set", pct(mem_use), gflops, fl,
      pct(comp_use)));
  d.facts.push_back(
      fmt::format("the task's floor is {:.4g} ms ({}-bound at the peaks); this "
                  "kernel takes {:.2f}x that",
                  std::max(mem_ms, comp_ms), mem_ms >= comp_ms ? "memory" : "compute",
                  in.median_ms / std::max({mem_ms, comp_ms, 1e-12})));
  d.figures = {
      {"memory_use", mem_use}, {"compute_use", comp_use}, {"floor_ms", std::max(mem_ms, comp_ms)}};
  return d;
}

Diagnosis diagnose(const DiagnoseInputs& in) {
  if (!in.modeled.is_null()) return diagnose_modeled(in.modeled);
  Diagnosis d = diagnose_roofline(in);
  if (!in.compile_notes.empty()) add_ptxas_facts(d, in.compile_notes);
  if (!in.device_peaks)
    d.facts.push_back(
        "counters unavailable: the jailed runner reads no hardware counters "
        "(perf_event_open is not in its seccomp allowlist), so cache and branch "
        "behaviour is not measured");
  return d;
}

}  // namespace evk
