#include "trace.h"

#include <fmt/format.h>

namespace evk::runner::ascendc::trace {

// ---------------- recording ----------------

void Writer::attach(uint8_t* region, size_t capacity) {
  base_ = region;
  cap_ = capacity;
  pos_ = kRegionHeader;
  std::memcpy(base_, &kRegionMagic, 8);
  commit();
}

void Writer::begin_call(const std::vector<std::pair<uint64_t, uint64_t>>& buffers) {
  if (!base_) return;
  pos_ = kRegionHeader;
  pod(static_cast<uint32_t>(buffers.size()));
  for (const auto& [addr, bytes] : buffers) {
    pod(addr);
    pod(bytes);
  }
  commit();
}

void Writer::put(const void* p, size_t n) {
  if (pos_ + n > cap_)
    Emulator::get().fail(
        "TRACE_FULL",
        fmt::format("one evk_forward call made more than {} MiB of Ascend C API calls (each is "
                    "recorded to be replayed): move data in tiles with DataCopy and vector "
                    "instructions, not element by element with GetValue/SetValue",
                    cap_ >> 20));
  std::memcpy(base_ + pos_, p, n);
  pos_ += n;
}

void Writer::commit() {
  uint64_t n = pos_ - kRegionHeader;
  std::memcpy(base_ + 8, &n, 8);
}

Writer& writer() {
  static Writer w;
  return w;
}

// ---------------- replay ----------------

namespace {

constexpr uint64_t kPageSlack = 4096;  // an address at or just past a buffer's end still maps

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  template <class T>
  T pod() {
    T v;
    std::memcpy(&v, need(sizeof v), sizeof v);
    return v;
  }
  std::string str(size_t n) { return std::string(reinterpret_cast<const char*>(need(n)), n); }
  bool done() const { return pos_ == n_; }
  size_t pos() const { return pos_; }

 private:
  const uint8_t* need(size_t k) {
    if (k > n_ - pos_)
      throw Rejected(
          fmt::format("[TRACE_MALFORMED] the trace ends inside an entry (byte {} of "
                      "{}): it was not written by the runner's API",
                      pos_, n_));
    const uint8_t* q = p_ + pos_;
    pos_ += k;
    return q;
  }
  const uint8_t* p_;
  size_t n_, pos_ = 0;
};

struct Span {
  uint64_t rec, bytes, rep;
};

struct Replayer {
  std::vector<Span> spans;
  size_t entry = 0;  // the entry being replayed (for messages)

  uint64_t map(uint64_t a) const {
    if (a == 0) return 0;  // an unset GlobalTensor: the emulator names it if it is used
    for (const auto& s : spans)
      if (a >= s.rec && a - s.rec <= s.bytes + kPageSlack) return s.rep + (a - s.rec);
    throw Rejected(fmt::format(
        "[TRACE_FOREIGN_ADDRESS] API call #{} used the global-memory address {:#x}, which lies "
        "in none of this call's buffers (inputs, outputs, workspace): an address kept from an "
        "earlier call or taken from another call's buffers; a kernel may only use the GM_ADDR "
        "arguments of the current call",
        entry, a));
  }
};

void translate(const Replayer& rp, evk_gt& g) {
  g.addr = rp.map(g.addr);
}
void translate(const Replayer& rp, evk_mm& m) {
  for (evk_gt* g : {&m.a, &m.b, &m.bias, &m.c}) translate(rp, *g);
}
void translate(const Replayer& rp, GmAddr& g) {
  g.addr = rp.map(g.addr);
}
template <class S>
void translate(const Replayer&, S&) {}

// One decoded parameter of type T, held for the call.
template <class T>
struct Held {
  using S = std::remove_cv_t<std::remove_pointer_t<T>>;
  static constexpr bool kScalar = std::is_arithmetic_v<T>;
  static constexpr bool kStr = std::is_same_v<T, const char*>;
  static constexpr bool kGm = std::is_same_v<T, GmAddr>;
  static constexpr bool kBlob = std::is_same_v<T, HostBytes>;
  static constexpr bool kIn = !kScalar && !kStr && std::is_const_v<std::remove_pointer_t<T>>;
  static constexpr bool kOut = !kScalar && !kStr && !kIn && !kGm && !kBlob;
  std::conditional_t<kScalar, T, S> v{};
  std::string s;
  bool has = false;
  T arg() {
    if constexpr (kScalar || kGm) {
      return v;
    } else if constexpr (kBlob) {
      return HostBytes{s.data(), s.size()};
    } else if constexpr (kStr) {
      return s.c_str();
    } else if constexpr (kIn) {
      return has ? &v : nullptr;
    } else {
      return &v;
    }
  }
};

template <class T>
Held<T> decode(Reader& r, const Replayer& rp) {
  Held<T> h;
  if constexpr (Held<T>::kScalar) {
    h.v = r.pod<T>();
  } else if constexpr (Held<T>::kGm) {
    h.v = r.pod<GmAddr>();
    translate(rp, h.v);
  } else if constexpr (Held<T>::kBlob) {
    h.s = r.str(r.pod<uint64_t>());
  } else if constexpr (Held<T>::kStr) {
    h.s = r.str(r.pod<uint16_t>());
  } else if constexpr (Held<T>::kIn) {
    h.has = r.pod<uint8_t>() != 0;
    if (h.has) {
      h.v = r.pod<typename Held<T>::S>();
      translate(rp, h.v);
    }
  }
  return h;
}

[[noreturn]] void diverged(const Replayer& rp, const char* api) {
  throw Rejected(fmt::format(
      "[TRACE_DIVERGED] API call #{} ({}): what the kernel's process recorded as its result "
      "differs from what the replay's emulator returns: the calls the kernel made were not "
      "what the emulator saw, or its state was changed behind the API",
      rp.entry, api));
}

template <class T>
void check_out(Reader& r, Held<T>& h, const Replayer& rp, const char* api) {
  if constexpr (Held<T>::kOut) {
    auto rec = r.pod<typename Held<T>::S>();
    if (std::memcmp(&rec, &h.v, sizeof rec) != 0) diverged(rp, api);
  }
}

template <class R>
void check_return(Reader& r, Replayer& rp, R act, const char* api) {
  R rec = r.pod<R>();
  if constexpr (std::is_same_v<R, uint64_t>) {
    // A GM address the API handed out (the workspace): the recorded one maps to this one.
    rp.spans.push_back({rec, Emulator::get().gm_bytes_at(act), act});
  } else if (std::memcmp(&rec, &act, sizeof rec) != 0) {
    diverged(rp, api);
  }
}

template <class R, class... P>
void replay_method(Reader& r, Replayer& rp, R (Emulator::*m)(P...), const char* api) {
  std::tuple<Held<P>...> h{decode<P>(r, rp)...};
  Emulator& e = Emulator::get();
  if constexpr (std::is_void_v<R>) {
    std::apply([&](auto&... x) { (e.*m)(x.arg()...); }, h);
    std::apply([&](auto&... x) { (check_out(r, x, rp, api), ...); }, h);
  } else {
    R act = std::apply([&](auto&... x) { return (e.*m)(x.arg()...); }, h);
    std::apply([&](auto&... x) { (check_out(r, x, rp, api), ...); }, h);
    check_return(r, rp, act, api);
  }
}

template <class R, class... P>
void replay_method(Reader& r, Replayer& rp, R (Emulator::*m)(P...) const, const char* api) {
  std::tuple<Held<P>...> h{decode<P>(r, rp)...};
  R act = std::apply([&](auto&... x) { return (Emulator::get().*m)(x.arg()...); }, h);
  check_return(r, rp, act, api);
}

template <Id id>
void replay_row(Reader& r, Replayer& rp) {
  replay_method(r, rp, Row<id>::method, Row<id>::text);
}

using ReplayFn = void (*)(Reader&, Replayer&);
constexpr ReplayFn kRows[] = {nullptr,
#define EVK_ACL_TRACE_FN(name, m) &replay_row<Id::name>,
                              EVK_ACL_TRACE_ROWS(EVK_ACL_TRACE_FN)
#undef EVK_ACL_TRACE_FN
};
static_assert(sizeof kRows / sizeof kRows[0] == static_cast<size_t>(Id::kCount));

}  // namespace

void replay_call(const uint8_t* blob, size_t bytes, const std::vector<uint64_t>& replay_bases,
                 const std::vector<uint64_t>& expected_bytes) {
  Reader r(blob, bytes);
  Replayer rp;
  uint32_t n = r.pod<uint32_t>();
  if (n != replay_bases.size())
    throw Rejected(
        fmt::format("[TRACE_MALFORMED] the trace names {} buffers where the call "
                    "had {}: it was not written by the runner",
                    n, replay_bases.size()));
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t rec = r.pod<uint64_t>(), len = r.pod<uint64_t>();
    if (len != expected_bytes[i])
      throw Rejected(
          fmt::format("[TRACE_MALFORMED] buffer {} of the trace holds {} bytes where "
                      "the call's holds {}: it was not written by the runner",
                      i, len, expected_bytes[i]));
    rp.spans.push_back({rec, len, replay_bases[i]});
  }
  while (!r.done()) {
    ++rp.entry;
    auto id = r.pod<uint16_t>();
    if (id == 0 || id >= static_cast<uint16_t>(Id::kCount))
      throw Rejected(
          fmt::format("[TRACE_MALFORMED] entry #{} has no API row {} (byte {}): it "
                      "was not written by the runner",
                      rp.entry, id, r.pos()));
    kRows[id](r, rp);
  }
}

}  // namespace evk::runner::ascendc::trace
