// ascendc_trace_cost: what the API trace (runner/ascendc/trace.h) costs per Ascend C call.
// One ReLU launch over 65536 floats (24 blocks, double-buffered tiles: the corpus's relu
// solution, its calls made directly) runs on the emulator three ways in the same process:
//   plain     the calls forwarded to the emulator, nothing recorded (before the trace);
//   recorded  each call recorded into a trace region as evk-runner-ascendc does (after);
//   replayed  the recorded trace decoded and replayed on a fresh emulator, as
//             evk-ascendc-replay does for every checked call (after).
// Prints per-call medians (ns) and IQRs over --reps runs, and the ratios to `plain`.
//   ascendc_trace_cost [--reps N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "emulator.h"
#include "trace.h"

namespace {
using evk::runner::ascendc::Emulator;
namespace trace = evk::runner::ascendc::trace;
using trace::Id;
using trace::traced;

constexpr uint32_t kElems = 65536, kBlocks = 24, kTile = 2736;  // the relu solution's tiling

// The relu solution's calls; returns how many API calls it made.
int relu_launch(uint64_t x, uint64_t y) {
  int calls = 0;
  auto call = [&calls](auto f) {
    ++calls;
    return f();
  };
  call([] {
    traced<Id::LaunchBegin>(kBlocks, "relu_custom");
    return 0;
  });
  while (call([] { return traced<Id::NextBlock>(); }) >= 0) {
    uint32_t b = call([] { return traced<Id::BlockIdx>(); });
    uint32_t start = kTile * b, len = std::min(kTile, kElems - std::min(kElems, start));
    evk_gt xg{x + start * 4ull, len, 0}, yg{y + start * 4ull, len, 0};
    call([&] {
      traced<Id::GmCheck>(&xg);
      return 0;
    });
    call([&] {
      traced<Id::GmCheck>(&yg);
      return 0;
    });
    uint32_t in = call([] { return traced<Id::InitQueue>(EVK_POS_VECIN, 2, 2u, kTile * 4); });
    uint32_t out = call([] { return traced<Id::InitQueue>(EVK_POS_VECOUT, 2, 2u, kTile * 4); });
    for (uint32_t off = 0; off < len; off += kTile) {
      uint32_t n = std::min(kTile, len - off);
      evk_lt a{}, c{};
      call([&] {
        traced<Id::Alloc>(in, 0, &a);
        return 0;
      });
      call([&] {
        traced<Id::Copy>(EVK_COPY_GM_TO_LOCAL, &a, nullptr, &xg, n);
        return 0;
      });
      call([&] {
        traced<Id::Enque>(in, &a);
        return 0;
      });
      call([&] {
        traced<Id::Deque>(in, 0, &a);
        return 0;
      });
      call([&] {
        traced<Id::Alloc>(out, 0, &c);
        return 0;
      });
      call([&] {
        traced<Id::Unary>(EVK_ACL_RELU, &c, &a, n);
        return 0;
      });
      call([&] {
        traced<Id::Enque>(out, &c);
        return 0;
      });
      call([&] {
        traced<Id::Free>(in, &a);
        return 0;
      });
      call([&] {
        traced<Id::Deque>(out, 0, &c);
        return 0;
      });
      call([&] {
        traced<Id::Copy>(EVK_COPY_LOCAL_TO_GM, &c, nullptr, &yg, n);
        return 0;
      });
      call([&] {
        traced<Id::Free>(out, &c);
        return 0;
      });
    }
  }
  call([] {
    traced<Id::LaunchEnd>();
    return 0;
  });
  return calls;
}

double now_ns() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Stat {
  double median, iqr;
};
Stat stat(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))]; };
  return {q(0.5), q(0.75) - q(0.25)};
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 30;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--reps") reps = std::max(3, std::atoi(argv[i + 1]));
  Emulator& e = Emulator::get();
  e.set_fail_handler([](const std::string&, const std::string& m) { throw std::runtime_error(m); });
  std::vector<float> host(kElems);
  for (uint32_t i = 0; i < kElems; ++i) host[i] = static_cast<float>(i % 17) - 8.0f;
  auto fresh = [&](uint64_t& x, uint64_t& y) {
    e.reset();
    x = e.gm_alloc(kElems * 4, "x");
    y = e.gm_alloc(kElems * 4, "y");
    e.gm_write(x, host.data(), kElems * 4);
    e.begin_call();
  };
  std::vector<uint8_t> region(64u << 20);
  std::vector<double> plain, recorded, replayed;
  int calls = 0;
  double cycles_plain = 0, cycles_replay = 0;
  for (int r = 0; r < reps; ++r) {
    uint64_t x, y;
    fresh(x, y);  // plain: the writer is not attached yet on the first pass of each rep
    trace::writer() = trace::Writer();
    double t0 = now_ns();
    calls = relu_launch(x, y);
    plain.push_back((now_ns() - t0) / calls);
    cycles_plain = e.call_cycles();

    fresh(x, y);
    trace::writer().attach(region.data(), region.size());
    trace::writer().begin_call({{x, kElems * 4ull}, {y, kElems * 4ull}});
    t0 = now_ns();
    relu_launch(x, y);
    recorded.push_back((now_ns() - t0) / calls);
    uint64_t bytes;
    std::memcpy(&bytes, region.data() + 8, 8);
    std::vector<uint8_t> blob(region.begin() + 16, region.begin() + 16 + static_cast<long>(bytes));
    trace::writer() = trace::Writer();

    uint64_t x2, y2;
    fresh(x2, y2);
    t0 = now_ns();
    trace::replay_call(blob.data(), blob.size(), {x2, y2}, {kElems * 4ull, kElems * 4ull});
    replayed.push_back((now_ns() - t0) / calls);
    cycles_replay = e.call_cycles();
  }
  Stat p = stat(plain), rc = stat(recorded), rp = stat(replayed);
  fmt::print("one ReLU launch over {} floats: {} API calls; {} reps\n", kElems, calls, reps);
  fmt::print("{:<10} {:>12} {:>10} {:>10}\n", "", "ns/call", "IQR", "x plain");
  fmt::print("{:<10} {:>12.1f} {:>10.1f} {:>10.2f}\n", "plain", p.median, p.iqr, 1.0);
  fmt::print("{:<10} {:>12.1f} {:>10.1f} {:>10.2f}\n", "recorded", rc.median, rc.iqr,
             rc.median / p.median);
  fmt::print("{:<10} {:>12.1f} {:>10.1f} {:>10.2f}\n", "replayed", rp.median, rp.iqr,
             rp.median / p.median);
  fmt::print("modeled cycles: plain {:.1f}, replayed {:.1f} ({})\n", cycles_plain, cycles_replay,
             cycles_plain == cycles_replay ? "identical" : "DIFFERENT");
  return cycles_plain == cycles_replay ? 0 : 1;
}
