// The API trace: every evk_acl_* call a kernel makes, recorded by evk-runner-ascendc and
// replayed by evk-ascendc-replay in a fresh emulator that no kernel code ever ran in. The
// verdict's outputs and cycles come from the replay, so nothing the kernel does off the books
// (writing the bytes behind GM, zeroing the emulator's clocks, driving the launch protocol by
// hand) can change them: the replay knows only the charged calls.
//
// The codec is a table: one row per entry point, EVK_ACL_TRACE_ROWS(X) below, naming the
// Emulator method the C entry point forwards to. The method's parameter types are the entry's
// layout, in order:
//   arithmetic        its bytes
//   const char*       u16 length, then the bytes (a kernel's name)
//   const T*          u8 present, then T (an input: a LocalTensor, GlobalTensor, matmul call)
//   T* (non-const)    T after the call (an output), compared on replay
//   GmAddr            its u64, translated like a GlobalTensor's address
//   HostBytes         u64 length, then the bytes (the host data aclrtMemcpy uploads)
//   return value      after the outputs, compared on replay; a uint64_t return is a GM
//                     address (the workspace, an aclrtMalloc) and maps the recorded buffer to
//                     the replay's
// GM addresses (evk_gt.addr, evk_mm's four) are translated from the recording process's
// buffers to the replay's through the call's buffer table; an address outside every buffer of
// the call (one remembered from an earlier call, another slot's output) rejects the trace.
// Adding an entry point: one row here and a one-line C wrapper in api.cpp that calls
// traced<trace::Id::Row>(args...). GmLoad and GmStore have no C entry point: gm_direct.cpp's
// trap handler records them for the kernel's own loads and stores through __gm__ pointers.
//
// A call's trace blob: u32 buffer count, {u64 recorded address, u64 bytes} per buffer (the
// call's inputs then outputs, ABI order), then the entries, each u16 row id and its fields.
// Everything in a trace is adversarial input (the kernel's process wrote it): the decoder
// checks every length and rejects what does not parse.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "emulator.h"
#include "gm_direct.h"

namespace evk::runner::ascendc::trace {

#define EVK_ACL_TRACE_ROWS(X)    \
  X(BlockIdx, block_idx)         \
  X(BlockNum, block_num)         \
  X(LaunchBegin, launch_begin)   \
  X(NextBlock, next_block)       \
  X(LaunchEnd, launch_end)       \
  X(Workspace, workspace)        \
  X(InitQueue, init_queue)       \
  X(InitTbuf, init_tbuf)         \
  X(Alloc, alloc)                \
  X(Enque, enque)                \
  X(Deque, deque)                \
  X(Free, free_tensor)           \
  X(TbufGet, tbuf_get)           \
  X(CheckSub, check_sub)         \
  X(GmCheck, gm_check)           \
  X(Copy, copy)                  \
  X(CopyBlocks, copy_blocks)     \
  X(CopyPad, copy_pad)           \
  X(Binary, binary)              \
  X(Scalar, scalar_op)           \
  X(Unary, unary)                \
  X(Duplicate, duplicate)        \
  X(Cast, cast)                  \
  X(Compare, compare)            \
  X(Select, select)              \
  X(Reduce, reduce)              \
  X(WholeReduce, whole_reduce)   \
  X(Get, get_value)              \
  X(Set, set_value)              \
  X(GmGet, gm_get)               \
  X(GmSet, gm_set)               \
  X(GmLoad, gm_load)             \
  X(GmStore, gm_store)           \
  X(Matmul, matmul)              \
  X(Barrier, barrier)            \
  X(DevMalloc, dev_malloc)       \
  X(DevUpload, dev_upload_bytes) \
  X(DevFree, dev_free_at)

enum class Id : uint16_t {
  kNone = 0,
#define EVK_ACL_TRACE_ID(name, method) name,
  EVK_ACL_TRACE_ROWS(EVK_ACL_TRACE_ID)
#undef EVK_ACL_TRACE_ID
      kCount
};

// Row -> the Emulator method it forwards to.
template <Id>
struct Row;
#define EVK_ACL_TRACE_ROW(name, m)               \
  template <>                                    \
  struct Row<Id::name> {                         \
    static constexpr auto method = &Emulator::m; \
    static constexpr const char* text = #m;      \
  };
EVK_ACL_TRACE_ROWS(EVK_ACL_TRACE_ROW)
#undef EVK_ACL_TRACE_ROW

// The recording side: a shared region the parent reads after each call. Layout: u64 magic,
// u64 bytes of the blob that follows (updated after every entry), the blob.
constexpr uint64_t kRegionMagic = 0x45564b5452414345ull;  // "EVKTRACE"
constexpr size_t kRegionHeader = 16;

class Writer {
 public:
  // Recording starts with attach (a no-op writer records nothing).
  void attach(uint8_t* region, size_t capacity);
  bool attached() const { return base_ != nullptr; }
  // Starts a call's blob with its buffer table ({recorded address, bytes}).
  void begin_call(const std::vector<std::pair<uint64_t, uint64_t>>& buffers);
  void put(const void* p, size_t n);
  template <class T>
  void pod(const T& v) {
    put(&v, sizeof v);
  }
  void commit();  // the header counts what was written so far

 private:
  uint8_t* base_ = nullptr;
  size_t cap_ = 0, pos_ = 0;
};

Writer& writer();

// ---------------- recording ----------------

template <class T>
void record_in(Writer& w, T v) {
  if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, GmAddr>) {
    w.pod(v);
  } else if constexpr (std::is_same_v<T, HostBytes>) {
    w.pod(v.bytes);
    w.put(v.data, v.bytes);
  } else if constexpr (std::is_same_v<T, const char*>) {
    size_t n = v ? std::strlen(v) : 0;
    uint16_t len = static_cast<uint16_t>(n > 200 ? 200 : n);
    w.pod(len);
    w.put(v, len);
  } else if constexpr (std::is_const_v<std::remove_pointer_t<T>>) {
    uint8_t has = v != nullptr;
    w.pod(has);
    if (v) w.pod(*v);
  }  // an output pointer: recorded after the call
}

template <class T>
void record_out(Writer& w, T v) {
  if constexpr (std::is_pointer_v<T> && !std::is_const_v<std::remove_pointer_t<T>>) w.pod(*v);
}

template <class R, class... P, class... A>
R traced_call(Id id, R (Emulator::*m)(P...), A... a) {
  gm_direct::ApiScope api;
  Writer& w = writer();
  std::tuple<P...> args{static_cast<P>(a)...};
  if (!w.attached()) return std::apply([&](P... x) { return (Emulator::get().*m)(x...); }, args);
  w.pod(static_cast<uint16_t>(id));
  std::apply([&](P... x) { (record_in<P>(w, x), ...); }, args);
  if constexpr (std::is_void_v<R>) {
    std::apply([&](P... x) { (Emulator::get().*m)(x...); }, args);
    std::apply([&](P... x) { (record_out<P>(w, x), ...); }, args);
    w.commit();
  } else {
    R r = std::apply([&](P... x) { return (Emulator::get().*m)(x...); }, args);
    std::apply([&](P... x) { (record_out<P>(w, x), ...); }, args);
    w.pod(r);
    w.commit();
    return r;
  }
}

template <class R, class... P, class... A>
R traced_call(Id id, R (Emulator::*m)(P...) const, A... a) {
  gm_direct::ApiScope api;
  Writer& w = writer();
  R r = (Emulator::get().*m)(static_cast<P>(a)...);
  if (!w.attached()) return r;
  w.pod(static_cast<uint16_t>(id));
  (record_in<P>(w, static_cast<P>(a)), ...);
  w.pod(r);
  w.commit();
  return r;
}

// api.cpp's entry points: traced<Id::Copy>(dir, lt, lt2, gt, n).
template <Id id, class... A>
auto traced(A... a) {
  return traced_call(id, Row<id>::method, a...);
}

// ---------------- replay ----------------

// Why a trace was rejected: "[TRACE_...] what".
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Replays one call's blob on the Emulator (already holding the call's fresh buffers at
// `replay_bases`, the same order and sizes as the blob's table).
void replay_call(const uint8_t* blob, size_t bytes, const std::vector<uint64_t>& replay_bases,
                 const std::vector<uint64_t>& expected_bytes);

}  // namespace evk::runner::ascendc::trace
