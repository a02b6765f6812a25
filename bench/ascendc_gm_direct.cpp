// ascendc_gm_direct: what a load or store through a __gm__ pointer costs (runner/ascendc/
// gm_direct.h), on the emulator, trace codec and fault handler of runner/ascendc linked in
// directly, against references measured in the same run:
//   direct load/store   a kernel's own access: the fault, the page copy, the single step, the
//                       trace row (as in evk-runner-ascendc); then the same trace replayed on a
//                       fresh emulator (as evk-ascendc-replay does)
//   GetValue/SetValue   GlobalTensor's scalar access through the traced API, recorded and
//                       replayed the same way
//   floor               one signal round trip (raise) plus one mprotect pair: what the
//                       mechanism cannot go below on this machine
// Prints per-access medians (ns) and IQRs over --reps runs, the ratios, and the modeled cycles
// of N direct loads (stores) against N GetValue (SetValue), which must be equal.
//   ascendc_gm_direct [--reps N] [--accesses N]
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "emulator.h"
#include "evokernel/kernel_abi.h"
#include "gm_direct.h"
#include "trace.h"

namespace {
using evk::runner::ascendc::Emulator;
namespace gm_direct = evk::runner::ascendc::gm_direct;
namespace trace = evk::runner::ascendc::trace;
using trace::Id;
using trace::traced;
using Clock = std::chrono::steady_clock;

std::vector<uint8_t> g_region(64u << 20);  // the trace region

struct Stats {
  double median = 0, iqr = 0;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return {v[n / 2], v[(3 * n) / 4] - v[n / 4]};
}

enum class Kind { kDirectLoad, kDirectStore, kGetValue, kSetValue };

struct Run {
  double record_ns = 0, replay_ns = 0, cycles = 0;
};

// A fresh device holding x (filled) and y; returns their addresses.
std::pair<uint64_t, uint64_t> fresh_device(uint32_t n) {
  Emulator& e = Emulator::get();
  e.reset();
  uint64_t x = e.gm_alloc(n * 4ull, "x"), y = e.gm_alloc(n * 4ull, "y");
  std::vector<float> data(n);
  for (uint32_t i = 0; i < n; ++i) data[i] = static_cast<float>(i % 97) - 48.0f;
  e.gm_write(x, data.data(), n * 4ull);
  e.gm_write(y, data.data(), n * 4ull);
  e.begin_call();
  return {x, y};
}

// One launch of one block making `n` accesses of `kind`, recorded; then its trace replayed.
Run run(Kind kind, uint32_t n) {
  Emulator& e = Emulator::get();
  auto [x, y] = fresh_device(n);
  trace::writer().begin_call({{x, n * 4ull}, {y, n * 4ull}});
  traced<Id::LaunchBegin>(1u, "k");
  traced<Id::NextBlock>();
  auto* xs = reinterpret_cast<volatile float*>(x);
  auto* ys = reinterpret_cast<volatile float*>(y);
  evk_gt xg{x, n, EVK_F32}, yg{y, n, EVK_F32};
  float sum = 0;
  auto t0 = Clock::now();
  for (uint32_t i = 0; i < n; ++i) {
    switch (kind) {
      case Kind::kDirectLoad:
        sum += xs[i];
        break;
      case Kind::kDirectStore:
        ys[i] = static_cast<float>(i);
        break;
      case Kind::kGetValue:
        sum += static_cast<float>(traced<Id::GmGet>(&xg, uint64_t{i}));
        break;
      case Kind::kSetValue:
        traced<Id::GmSet>(&yg, uint64_t{i}, static_cast<double>(i));
        break;
    }
  }
  auto t1 = Clock::now();
  traced<Id::NextBlock>();
  traced<Id::LaunchEnd>();
  Run r;
  r.cycles = e.launches().back().cycles + (sum == 1e30f ? 1 : 0);
  r.record_ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
  uint64_t bytes = 0;
  std::memcpy(&bytes, g_region.data() + 8, 8);
  std::vector<uint8_t> blob(g_region.begin() + 16, g_region.begin() + 16 + bytes);
  auto [rx, ry] = fresh_device(n);
  auto t2 = Clock::now();
  trace::replay_call(blob.data(), blob.size(), {rx, ry}, {n * 4ull, n * 4ull});
  auto t3 = Clock::now();
  r.replay_ns = std::chrono::duration<double, std::nano>(t3 - t2).count() / n;
  if (e.launches().back().cycles != r.cycles)
    throw std::runtime_error("the replay charged differently");
  return r;
}

// One signal round trip and one mprotect pair on an anonymous page.
double floor_ns(uint32_t n) {
  void* p = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ::signal(SIGUSR1, [](int) {});
  auto t0 = Clock::now();
  for (uint32_t i = 0; i < n; ++i) {
    ::mprotect(p, 4096, PROT_READ | PROT_WRITE);
    static_cast<volatile char*>(p)[0] = 1;
    ::mprotect(p, 4096, PROT_NONE);
    ::raise(SIGUSR1);
  }
  auto t1 = Clock::now();
  ::munmap(p, 4096);
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  uint32_t n = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--reps")
      reps = std::max(1, std::stoi(argv[i + 1]));
    else if (a == "--accesses")
      n = static_cast<uint32_t>(std::max(1, std::stoi(argv[i + 1])));
  }
  Emulator::get().set_fail_handler(
      [](const std::string&, const std::string& m) { throw std::runtime_error(m); });
  gm_direct::install([] {
    std::fprintf(stderr, "a device-address fault was refused\n");
    std::_Exit(3);
  });
  trace::writer().attach(g_region.data(), g_region.size());
  const char* names[] = {"direct load", "direct store", "GetValue", "SetValue"};
  std::vector<double> rec[4], rep[4], flo;
  double cycles[4] = {};
  for (int r = 0; r < reps; ++r) {
    for (int k = 0; k < 4; ++k) {
      Run x = run(static_cast<Kind>(k), n);
      rec[k].push_back(x.record_ns);
      rep[k].push_back(x.replay_ns);
      cycles[k] = x.cycles;
    }
    flo.push_back(floor_ns(n));
  }
  Stats f = stats(flo);
  fmt::print("{} accesses per run, {} runs; per access, median (IQR) ns\n", n, reps);
  fmt::print("floor (raise + mprotect pair): {:.0f} ({:.0f})\n", f.median, f.iqr);
  for (int k = 0; k < 4; ++k) {
    Stats a = stats(rec[k]), b = stats(rep[k]);
    fmt::print("{:<13} runner {:>9.0f} ({:>6.0f})  replay {:>7.0f} ({:>5.0f})", names[k], a.median,
               a.iqr, b.median, b.iqr);
    if (k < 2) {
      Stats api = stats(rec[k + 2]);
      fmt::print("  runner vs {}: {:.1f}x, vs floor: {:.2f}x", names[k + 2], a.median / api.median,
                 a.median / f.median);
    }
    fmt::print("\n");
  }
  fmt::print(
      "modeled cycles of the launch: {} direct loads {:.0f}, {} GetValue {:.0f} (ratio {:.3f}); "
      "{} direct stores {:.0f}, {} SetValue {:.0f} (ratio {:.3f})\n",
      n, cycles[0], n, cycles[2], cycles[0] / cycles[2], n, cycles[1], n, cycles[3],
      cycles[1] / cycles[3]);
  return cycles[0] == cycles[2] && cycles[1] == cycles[3] ? 0 : 1;
}
