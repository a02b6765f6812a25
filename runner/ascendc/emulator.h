// The emulated Ascend 910B AI Core behind kernel_operator.h: it owns global memory (device
// addresses in PROT_NONE reservations, the bytes live elsewhere: a kernel's loads and stores
// through them are single-stepped by gm_direct.h and charged as scalar GM accesses) and every
// core's local memory (no address at all), checks each Ascend C call against the real toolchain's
// and runtime's rules, and charges it to a discrete-event model of the core's pipes (MTE2, vector,
// cube, MTE3, scalar).
//
// Timing: each call starts when its pipe is free, its operands' producers have finished and
// the scalar unit has issued it; a slot's last access bounds its next write, so a queue with
// one buffer serialises copy and compute and a queue with two overlaps them. Blocks run in
// waves over the cores of their kind (48 vector, 24 cube); a launch costs the slowest core,
// at least its GM bytes at the HBM bandwidth, plus the launch cost. Everything
// is a pure function of the sequence of calls: the same kernel gives the same cycles always.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "evokernel/ascendc_emu.h"

namespace evk::runner::ascendc {

// What ends a run: a named category (the guide's feedback table) and the message.
using FailHandler = std::function<void(const std::string& category, const std::string& message)>;

// Argument types of the traced entry points (trace.h): a device address, and bytes the trace
// carries whole (what aclrtMemcpy uploads; what a direct GM load saw or a store wrote).
struct GmAddr {
  uint64_t addr;
};
struct HostBytes {
  const void* data;
  uint64_t bytes;
};

// Where one launch's cycles went, for the diagnosis (src/verify/diagnose.h): filled at
// launch end from the same schedule that gives its cycles. Busy cycles are the slowest core's
// (the one that sets the launch's time), summed over its blocks.
struct PipeStats {
  enum { kMte2, kVector, kCube, kMte3, kScalar, kCount };
  double busy[kCount] = {};  // cycles each pipe worked (scalar: issue and scalar accesses)
  double mean_core = 0;      // mean cycles over the cores that ran a block
  uint32_t blocks = 0;       // blocks on the slowest core
  uint32_t ub_peak = 0;      // most Unified Buffer bytes one block reserved
  uint32_t queues = 0, single_buffered = 0;  // TQue count; those with one buffer
};

struct LaunchRecord {
  std::string kernel;
  uint32_t block_dim = 0;
  double cycles = 0;  // the slowest core
  PipeStats pipes;
};

class Emulator {
 public:
  static Emulator& get();

  void set_fail_handler(FailHandler h) { fail_ = std::move(h); }
  // Cost-only mode (evk-ascendc-eager on large shapes): every call is checked and charged as
  // before, so the cycles are the same, but the values are not computed (copies, vector
  // arithmetic and Matmul leave their destinations as they were). On by default.
  void set_numerics(bool on) { numerics_ = on; }
  bool numerics() const { return numerics_; }
  [[noreturn]] void fail(const std::string& category, const std::string& message);

  // Global memory. alloc returns a device address (a PROT_NONE reservation: a kernel's own
  // loads and stores there are caught and forwarded to gm_load/gm_store, gm_direct.h).
  uint64_t gm_alloc(size_t bytes, const std::string& name);
  void gm_write(uint64_t addr, const void* src, size_t bytes);
  void gm_read(uint64_t addr, void* dst, size_t bytes) const;
  void gm_release_all();
  // The bytes of the tensor whose reservation holds `addr`; 0 when none does.
  size_t gm_bytes_at(uint64_t addr) const;
  // A fresh device: every tensor unmapped, no launch, no call (evk-ascendc-replay, between
  // the calls it replays; a runner never calls it).
  void reset();
  // Whether `addr` lies in a reservation (for the SIGSEGV handler: async-signal-safe).
  static bool is_device_address(uintptr_t addr);

  // One evk_forward call: reset, run, then read what it cost. Handles (queue and tensor ids)
  // restart with each call, so a call's API results do not depend on the calls before it.
  void begin_call();
  double call_ms() const;
  const std::vector<LaunchRecord>& launches() const { return launches_; }
  double call_cycles() const;  // the launches, plus the host's uploads

  // The C API (ascendc_emu.h) forwards here.
  uint32_t block_idx() const;
  uint32_t block_num() const;
  void launch_begin(uint32_t dim, const char* kernel);
  int32_t next_block();
  void launch_end();
  uint64_t workspace();
  uint32_t init_queue(int32_t pos, int32_t depth, uint32_t num, uint32_t len);
  uint32_t init_tbuf(int32_t pos, uint32_t len);
  void alloc(uint32_t que, int32_t dtype, evk_lt* out);
  void enque(uint32_t que, const evk_lt* t);
  void deque(uint32_t que, int32_t dtype, evk_lt* out);
  void free_tensor(uint32_t que, const evk_lt* t);
  void tbuf_get(uint32_t buf, int32_t dtype, uint32_t count, evk_lt* out);
  void check_sub(const evk_lt* t, uint32_t off);
  void gm_check(const evk_gt* t);
  void copy(int32_t dir, const evk_lt* lt, const evk_lt* lt2, const evk_gt* gt, uint32_t count);
  void copy_blocks(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count, uint32_t len,
                   uint32_t src_stride, uint32_t dst_stride);
  void copy_pad(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count, uint32_t bytes,
                uint32_t src_stride, uint32_t dst_stride, int32_t pad, uint32_t left,
                uint32_t right, double value);
  void binary(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* b, uint32_t n);
  void scalar_op(int32_t op, const evk_lt* d, const evk_lt* a, double s, uint32_t n);
  void unary(int32_t op, const evk_lt* d, const evk_lt* a, uint32_t n);
  void duplicate(const evk_lt* d, double s, uint32_t n);
  void cast(const evk_lt* d, const evk_lt* a, int32_t round, uint32_t n);
  void compare(const evk_lt* mask, const evk_lt* a, const evk_lt* b, double s, bool with_scalar,
               int32_t mode, uint32_t n);
  void select(const evk_lt* d, const evk_lt* mask, const evk_lt* a, const evk_lt* b, double s,
              int32_t mode, uint32_t n);
  void reduce(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* work, uint32_t n,
              bool index);
  void whole_reduce(int32_t op, const evk_lt* d, const evk_lt* a, int32_t mask, int32_t repeat,
                    int32_t dst_rep, int32_t src_blk, int32_t src_rep, int32_t order);
  double get_value(const evk_lt* t, uint32_t i);
  void set_value(const evk_lt* t, uint32_t i, double v);
  double gm_get(const evk_gt* t, uint64_t i);
  void gm_set(const evk_gt* t, uint64_t i, double v);
  // A kernel's own load or store through a __gm__ pointer (gm_direct.h): the bytes it could
  // have read at `at` (compared with global memory: in a replay, a trace that lies about them
  // is rejected) or the bytes after its store (written). Each costs ceil(bytes / 4) scalar GM
  // accesses, ordered as GlobalTensor::GetValue/SetValue are. Only a running block may.
  void gm_load(GmAddr at, HostBytes seen);
  void gm_store(GmAddr at, HostBytes bytes);
  // Where the emulator keeps the bytes behind a device address, for gm_direct's fault
  // handler (no allocation, no lock): base 0 when no tensor's reservation holds `addr`.
  struct GmView {
    uint64_t base = 0;
    uint8_t* bytes = nullptr;
    size_t padded = 0;  // the bytes an access may touch (the allocator's round-up included)
  };
  GmView gm_view(uint64_t addr);
  void matmul(const evk_mm* mm);
  void barrier(int32_t pipe);
  // aclrtMalloc / aclrtMemcpy(HOST_TO_DEVICE) / aclrtFree from host code.
  uint64_t dev_malloc(uint64_t bytes);
  void dev_upload(uint64_t addr, const void* src, uint64_t bytes);
  void dev_free(uint64_t addr);
  // The same two with their arguments typed for the API trace (trace.h): a GM address the
  // replay translates, and host bytes the trace carries whole.
  void dev_upload_bytes(GmAddr addr, HostBytes src) { dev_upload(addr.addr, src.data, src.bytes); }
  void dev_free_at(GmAddr addr) { dev_free(addr.addr); }

  struct Impl;  // the state; public only to the emulator's own helper functions
  Impl& impl();

 private:
  Emulator() = default;
  FailHandler fail_;
  bool numerics_ = true;
  std::vector<LaunchRecord> launches_;
  double upload_cycles_ = 0;  // aclrtMemcpy to the device in this call
};

}  // namespace evk::runner::ascendc
