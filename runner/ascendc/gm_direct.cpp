#include "gm_direct.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "emulator.h"
#include "trace.h"

namespace evk::runner::ascendc::gm_direct {
namespace {

// One reservation page made accessible for the instruction in flight, and where it faulted.
struct OpenPage {
  uintptr_t page = 0, fault = 0;
  Emulator::GmView view;
};

constexpr int kMaxOpen = 16;  // pages one instruction may touch (a gather, a straddle)
OpenPage g_open[kMaxOpen];
int g_open_count = 0;
unsigned g_width = 0;  // the instruction's access width, decoded at its first fault
void (*g_refuse)() = nullptr;
uintptr_t g_page = 4096;

#if defined(__x86_64__)
constexpr greg_t kTrapFlag = 0x100;  // EFLAGS.TF: trap after the next instruction
#endif

// A fault that is not ours: the default action, reported as the signal it is.
void crash(int sig) {
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// The bytes of an open page as the emulator holds them: its part of the buffer's `padded`
// bytes, 0xFF (poison) past them.
size_t held_bytes(const OpenPage& o) {
  size_t off = o.page - o.view.base;
  return off < o.view.padded ? std::min<size_t>(g_page, o.view.padded - off) : 0;
}

void on_trap(int sig, siginfo_t*, void* ctx);

void on_fault(int sig, siginfo_t* info, void* ctx) {
  auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  if (!Emulator::is_device_address(addr)) return crash(sig);
#if defined(__x86_64__)
  Emulator::GmView v = Emulator::get().gm_view(addr);
  if (api_depth > 0 || sig != SIGSEGV || g_open_count >= kMaxOpen || v.base == 0) g_refuse();
  // The page stays open until on_trap closes it: a kernel that put its own SIGTRAP handler in
  // place (a raw rt_sigaction) would keep it open and read the rest of it uncharged. Only the
  // faulting instruction runs between here and the trap, so checking here is enough.
  struct sigaction trap {};
  if (::sigaction(SIGTRAP, nullptr, &trap) != 0 || !(trap.sa_flags & SA_SIGINFO) ||
      trap.sa_sigaction != on_trap)
    Emulator::get().fail("DIRECT_GM_ACCESS",
                         "the SIGTRAP handler was replaced: loads and stores through __gm__ "
                         "pointers are single-stepped by the runner, which needs its own "
                         "handler; a kernel installs no signal handlers");
  OpenPage& o = g_open[g_open_count];
  o.page = addr & ~(g_page - 1);
  o.fault = addr;
  o.view = v;
  if (::mprotect(reinterpret_cast<void*>(o.page), g_page, PROT_READ | PROT_WRITE) != 0) g_refuse();
  size_t have = held_bytes(o);
  auto* page = reinterpret_cast<uint8_t*>(o.page);
  if (have > 0) std::memcpy(page, v.bytes + (o.page - v.base), have);
  std::memset(page + have, 0xFF, g_page - have);
  auto* uc = static_cast<ucontext_t*>(ctx);
  if (g_open_count++ == 0)
    g_width =
        x86_access_width(reinterpret_cast<const unsigned char*>(uc->uc_mcontext.gregs[REG_RIP]));
  uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
#else
  (void)ctx;
  g_refuse();  // single-stepping is x86-64's here: elsewhere a direct access stops the run
#endif
}

// The first and one past the last byte where an open page differs from the emulator's bytes
// (first == last: unchanged).
std::pair<size_t, size_t> changed(const OpenPage& o) {
  static uint8_t poison[65536];
  if (poison[0] != 0xFF) std::memset(poison, 0xFF, sizeof poison);
  const auto* page = reinterpret_cast<const uint8_t*>(o.page);
  const uint8_t* held = o.view.bytes + (o.page - o.view.base);
  size_t have = held_bytes(o);
  if ((have == 0 || std::memcmp(page, held, have) == 0) &&
      std::memcmp(page + have, poison, std::min(g_page - have, sizeof poison)) == 0)
    return {0, 0};
  auto expected = [&](size_t i) { return i < have ? held[i] : uint8_t{0xFF}; };
  size_t first = 0, last = g_page;
  while (first < g_page && page[first] == expected(first)) ++first;
  while (last > first && page[last - 1] == expected(last - 1)) --last;
  return {first, last};
}

// The load window of the access that faulted at `fault`: its width, within the buffer's
// padded bytes. A fault past them reads poison, which gm_load reports as out of bounds.
HostBytes load_window(const OpenPage& o, uintptr_t fault, unsigned width) {
  static const uint8_t kPastEnd[64] = {};
  uintptr_t end = o.view.base + o.view.padded;
  if (fault >= end) return {kPastEnd, std::min<uint64_t>(width, sizeof kPastEnd)};
  return {o.view.bytes + (fault - o.view.base), std::min<uint64_t>(width, end - fault)};
}

// Records what the trapped instruction did, then closes its pages: loads first (an instruction
// reads before it writes), then stores.
void record_and_close() {
  unsigned width = g_width ? g_width : 4;
  std::pair<size_t, size_t> diff[kMaxOpen];
  uintptr_t load_lo = 0, load_hi = 0;
  for (int k = 0; k < g_open_count; ++k) {
    diff[k] = changed(g_open[k]);
    const OpenPage& o = g_open[k];
    if (diff[k].first != diff[k].second || (o.fault >= load_lo && o.fault < load_hi)) continue;
    load_lo = o.fault;
    load_hi = o.fault + width;  // a straddling load's second page is the same access
    trace::traced<trace::Id::GmLoad>(GmAddr{o.fault}, load_window(o, o.fault, width));
  }
  for (int k = 0; k < g_open_count; ++k) {
    const OpenPage& o = g_open[k];
    auto [lo, hi] = diff[k];
    if (lo == hi) continue;
    // The changed bytes, widened to the instruction's operand (within the page and the
    // buffer's padded bytes) so that a store of a value's unchanged bytes is charged too.
    size_t at = o.fault - o.page;
    uintptr_t end = std::min<uintptr_t>(o.page + g_page, o.view.base + o.view.padded);
    if (o.page + at < end) {
      lo = std::min(lo, at);
      hi = std::max<size_t>(hi, std::min<uintptr_t>(o.fault + width, end) - o.page);
    }
    trace::traced<trace::Id::GmStore>(
        GmAddr{o.page + lo}, HostBytes{reinterpret_cast<const uint8_t*>(o.page) + lo, hi - lo});
  }
  for (int k = 0; k < g_open_count; ++k) {
    std::memset(reinterpret_cast<void*>(g_open[k].page), 0xFF, g_page);
    if (::mprotect(reinterpret_cast<void*>(g_open[k].page), g_page, PROT_NONE) != 0) g_refuse();
  }
  g_open_count = 0;
}

void on_trap(int sig, siginfo_t*, void* ctx) {
  if (g_open_count == 0) return crash(sig);
#if defined(__x86_64__)
  static_cast<ucontext_t*>(ctx)->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
#else
  (void)ctx;
#endif
  record_and_close();
}

}  // namespace

void install(void (*refuse)()) {
  g_refuse = refuse;
  g_page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  // The handlers call into the emulator and the trace writer (and, for a kernel's error, the
  // harness's report): more than a small stack.
  static char stack[256 * 1024];
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = sizeof stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, nullptr);
  ::sigaction(SIGBUS, &sa, nullptr);
  sa.sa_sigaction = on_trap;
  ::sigaction(SIGTRAP, &sa, nullptr);
}

}  // namespace evk::runner::ascendc::gm_direct
