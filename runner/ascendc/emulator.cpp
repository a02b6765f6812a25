#include "emulator.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>

#include "backends/ascendc/npu_constants.h"
#include "evokernel/kernel_abi.h"

namespace evk::runner::ascendc {
namespace {

using namespace evk::npu;

enum Pipe { kMte2, kVec, kCube, kMte3, kPipes };
static_assert(int{kMte2} == int{PipeStats::kMte2} && int{kVec} == int{PipeStats::kVector} &&
                  int{kCube} == int{PipeStats::kCube} && int{kMte3} == int{PipeStats::kMte3},
              "PipeStats indexes its busy cycles by Pipe");

// The reservations' ranges, readable from a signal handler without locks.
constexpr int kMaxRanges = 4096;
struct Range {
  uintptr_t lo, hi;
};
Range g_ranges[kMaxRanges];
std::atomic<int> g_range_count{0};

size_t dtype_bytes(int32_t d) {
  switch (d) {
    case EVK_F32:
    case EVK_I32:
      return 4;
    case EVK_F16:
      return 2;
    case EVK_U8:
      return 1;
    default:
      return 0;
  }
}

const char* dtype_text(int32_t d) {
  switch (d) {
    case EVK_F32:
      return "float";
    case EVK_I32:
      return "int32_t";
    case EVK_F16:
      return "half";
    case EVK_U8:
      return "uint8_t";
    default:
      return "an unsupported type";
  }
}

const char* position_text(int32_t p) {
  static const char* names[] = {"GM", "A1",  "A2",  "B1",    "B2",     "C1",
                                "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC"};
  return p >= 0 && p < 12 ? names[p] : "an unknown position";
}
constexpr int32_t kPosVecin = 9, kPosVecout = 10, kPosVeccalc = 11;

double load(const uint8_t* p, int32_t d) {
  switch (d) {
    case EVK_F32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case EVK_I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case EVK_F16: {
      _Float16 v;
      std::memcpy(&v, p, 2);
      return static_cast<double>(v);
    }
    default:
      return *p;
  }
}

void store(uint8_t* p, int32_t d, double x) {
  switch (d) {
    case EVK_F32: {
      float v = static_cast<float>(x);
      std::memcpy(p, &v, 4);
      break;
    }
    case EVK_I32: {
      int32_t v =
          std::isnan(x) ? 0 : static_cast<int32_t>(std::clamp(x, -2147483648.0, 2147483647.0));
      std::memcpy(p, &v, 4);
      break;
    }
    case EVK_F16: {
      _Float16 v = static_cast<_Float16>(static_cast<float>(x));
      std::memcpy(p, &v, 2);
      break;
    }
    default:
      *p = static_cast<uint8_t>(x);
      break;
  }
}

uint32_t ceil_div(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

}  // namespace

// One allocation. As the runtime's allocator does, `padded` rounds `bytes` up to 32 and adds
// 32 more: accesses below `padded` are legal, the padding past `bytes` holds poison (0xFF: NaN
// in float and half) that is restored whenever the buffer is written from the host.
struct GmBuf {
  uint64_t base = 0;
  size_t bytes = 0, padded = 0, reserved = 0;
  enum Owner { kHarness, kHost, kHostFreed } owner = kHarness;  // kHost: aclrtMalloc'd
  std::vector<uint8_t> data;
  std::string name;
};

struct Slot {
  enum State { kFree, kAllocated, kQueued, kDequeued, kBuf };
  int32_t pos = 0;
  uint32_t byte_off = 0, bytes = 0;
  int32_t que = -1;  // -1: a TBuf
  State state = kFree;
  double ready = 0, busy = 0;  // end of the last write; end of the last access
};

struct Queue {
  int32_t pos = 0, depth = 1;
  uint32_t num = 0, len = 0, next = 0;  // next: where the allocation ring continues
  std::vector<uint32_t> slots;
  std::deque<uint32_t> fifo;
};

struct GmWrite {
  uint64_t lo, hi;
  double end;
};

struct Emulator::Impl {
  std::vector<std::unique_ptr<GmBuf>> gm;  // sorted by base
  uint64_t workspace = 0;
  // The launch.
  bool launching = false, in_block = false;
  uint32_t dim = 0, next = 0, current = 0, serial = 0;
  std::string kernel;
  std::vector<double> block_cycles;  // each finished block's own time
  double launch_gm_bytes = 0;        // every block's GM traffic, both directions
  bool launch_cube = false;          // a block used the cube: the blocks run on the AICs
  // The block.
  std::vector<uint8_t> ub = std::vector<uint8_t>(kUbBytes);
  uint32_t ub_used = 0;
  std::vector<Slot> slots;
  std::vector<Queue> queues;
  double pipe[kPipes] = {};
  double issue = 0;
  std::vector<GmWrite> gm_writes;
  // Where the cycles went (PipeStats): this block's busy cycles per pipe, and each finished
  // block's (folded per core at launch end, as block_cycles are).
  double busy[PipeStats::kCount] = {};
  std::vector<PipeStats> block_stats;

  // One core's copy rate; the chip-wide HBM limit is applied to the launch as a whole
  // (launch_end), so it is shared by the cores that are busy, not divided by blockDim.
  double bytes_per_cycle() const { return kMteBytesPerCycle; }
};

Emulator& Emulator::get() {
  static Emulator e;
  return e;
}

Emulator::Impl& Emulator::impl() {
  static Impl i;
  return i;
}

void Emulator::fail(const std::string& category, const std::string& message) {
  std::string m = "[" + category + "] " + message;
  if (fail_) fail_(category, m);
  std::fprintf(stderr, "%s\n", m.c_str());
  std::_Exit(3);
}

// ---------------- global memory ----------------

uint64_t Emulator::gm_alloc(size_t bytes, const std::string& name) {
  Impl& I = impl();
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t padded = (bytes + kUbAlign - 1) / kUbAlign * kUbAlign + kGmPadBytes;
  size_t reserved = ((padded + page - 1) / page + 1) * page;  // + a guard
  void* p =
      ::mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("cannot reserve device address space for " + name);
  auto b = std::make_unique<GmBuf>();
  b->base = reinterpret_cast<uintptr_t>(p);
  b->bytes = bytes;
  b->padded = padded;
  b->reserved = reserved;
  b->data.assign(padded, 0xFF);
  b->name = name;
  int k = g_range_count.load();
  if (k < kMaxRanges) {
    g_ranges[k] = {b->base, b->base + reserved};
    g_range_count.store(k + 1);
  }
  uint64_t base = b->base;
  auto it =
      std::lower_bound(I.gm.begin(), I.gm.end(), base,
                       [](const std::unique_ptr<GmBuf>& x, uint64_t v) { return x->base < v; });
  I.gm.insert(it, std::move(b));
  return base;
}

bool Emulator::is_device_address(uintptr_t addr) {
  int n = g_range_count.load();
  for (int i = 0; i < n; ++i)
    if (addr >= g_ranges[i].lo && addr < g_ranges[i].hi) return true;
  return false;
}

namespace {
GmBuf* find_gm(std::vector<std::unique_ptr<GmBuf>>& gm, uint64_t addr) {
  auto it =
      std::upper_bound(gm.begin(), gm.end(), addr,
                       [](uint64_t v, const std::unique_ptr<GmBuf>& x) { return v < x->base; });
  if (it == gm.begin()) return nullptr;
  GmBuf* b = std::prev(it)->get();
  return addr < b->base + b->reserved ? b : nullptr;
}
}  // namespace

void Emulator::gm_write(uint64_t addr, const void* src, size_t bytes) {
  GmBuf* b = find_gm(impl().gm, addr);
  if (!b || addr + bytes > b->base + b->bytes) throw std::runtime_error("gm_write out of range");
  std::memcpy(b->data.data() + (addr - b->base), src, bytes);
  if (addr == b->base) std::fill(b->data.begin() + b->bytes, b->data.end(), 0xFF);
}

void Emulator::gm_read(uint64_t addr, void* dst, size_t bytes) const {
  GmBuf* b = find_gm(const_cast<Emulator*>(this)->impl().gm, addr);
  if (!b || addr + bytes > b->base + b->bytes) throw std::runtime_error("gm_read out of range");
  std::memcpy(dst, b->data.data() + (addr - b->base), bytes);
}

void Emulator::gm_release_all() {
  // Reservations stay mapped (PROT_NONE) so that a stale address still faults as a direct
  // access instead of landing in whatever is mapped there next; only the bytes are freed.
  for (auto& b : impl().gm) std::vector<uint8_t>().swap(b->data), b->bytes = b->padded = 0;
}

// ---------------- host-side device memory (acl/acl.h) ----------------

namespace {
void need_host(Emulator& e, const Emulator::Impl& I, const char* api) {
  if (I.launching)
    e.fail("NOT_ON_HOST", fmt::format("{} inside a kernel: device memory is allocated and "
                                      "filled by the host, before ACLRT_LAUNCH_KERNEL",
                                      api));
}
}  // namespace

uint64_t Emulator::dev_malloc(uint64_t bytes) {
  Impl& I = impl();
  need_host(*this, I, "aclrtMalloc");
  if (bytes == 0 || bytes > (uint64_t{1} << 32))
    fail("BAD_MALLOC", fmt::format("aclrtMalloc of {} bytes: ask for 1 byte to 4 GiB", bytes));
  // A freed buffer of the same size is reused: each evk_forward call allocates afresh, and
  // reservations are never unmapped (a stale address must still fault).
  for (auto& b : I.gm)
    if (b->owner == GmBuf::kHostFreed && b->bytes == bytes) {
      b->owner = GmBuf::kHost;
      std::fill(b->data.begin(), b->data.end(), 0xFF);
      return b->base;
    }
  uint64_t addr = gm_alloc(bytes, "an aclrtMalloc buffer");
  find_gm(I.gm, addr)->owner = GmBuf::kHost;
  return addr;
}

void Emulator::dev_upload(uint64_t addr, const void* src, uint64_t bytes) {
  Impl& I = impl();
  need_host(*this, I, "aclrtMemcpy");
  GmBuf* b = find_gm(I.gm, addr);
  if (!b || b->owner != GmBuf::kHost || addr + bytes > b->base + b->bytes)
    fail("DIRECT_GM_ACCESS",
         "aclrtMemcpy(ACL_MEMCPY_HOST_TO_DEVICE) into memory the host did not aclrtMalloc (or "
         "past its end): the host may fill only its own buffers (tiling data, tables from the "
         "shapes); inputs and outputs are moved by kernels");
  std::memcpy(b->data.data() + (addr - b->base), src, bytes);
  upload_cycles_ += static_cast<double>(bytes) / (kHbmGBps / kClockGHz);
}

void Emulator::dev_free(uint64_t addr) {
  Impl& I = impl();
  need_host(*this, I, "aclrtFree");
  GmBuf* b = find_gm(I.gm, addr);
  if (b && b->owner == GmBuf::kHost && addr == b->base) b->owner = GmBuf::kHostFreed;
}

// ---------------- calls and launches ----------------

void Emulator::begin_call() {
  launches_.clear();
  impl().serial = 0;
  upload_cycles_ = 0;
}

size_t Emulator::gm_bytes_at(uint64_t addr) const {
  GmBuf* b = find_gm(const_cast<Emulator*>(this)->impl().gm, addr);
  return b ? b->bytes : 0;
}

void Emulator::reset() {
  Impl& I = impl();
  for (auto& b : I.gm)
    ::munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(b->base)), b->reserved);
  g_range_count.store(0);
  I = Impl();
  launches_.clear();
  upload_cycles_ = 0;
}

double Emulator::call_cycles() const {
  double c = upload_cycles_;
  for (const auto& l : launches_) c += l.cycles;
  return c;
}

double Emulator::call_ms() const {
  return call_cycles() / (kClockGHz * 1e6) +
         static_cast<double>(launches_.size()) * kLaunchUs * 1e-3;
}

namespace {
void need_block(Emulator& e, bool in_block, const char* api) {
  if (!in_block)
    e.fail("NOT_IN_KERNEL",
           fmt::format("{} was called outside a kernel: Ascend C APIs run on the AI Core, inside "
                       "an extern \"C\" __global__ __aicore__ function launched with "
                       "ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...); host code only "
                       "computes the tiling and launches",
                       api));
}
}  // namespace

uint32_t Emulator::block_idx() const {
  Impl& I = const_cast<Emulator*>(this)->impl();
  need_block(*const_cast<Emulator*>(this), I.in_block, "GetBlockIdx");
  return I.current;
}

uint32_t Emulator::block_num() const {
  Impl& I = const_cast<Emulator*>(this)->impl();
  need_block(*const_cast<Emulator*>(this), I.in_block, "GetBlockNum");
  return I.dim;
}

void Emulator::launch_begin(uint32_t dim, const char* kernel) {
  Impl& I = impl();
  if (I.launching)
    fail("BAD_LAUNCH", fmt::format("ACLRT_LAUNCH_KERNEL({}) inside a kernel: kernels cannot "
                                   "launch kernels; launch each from evk_forward in turn",
                                   kernel));
  if (dim == 0 || dim > 65535)
    fail("BAD_LAUNCH", fmt::format("ACLRT_LAUNCH_KERNEL({}) with blockDim {}: blockDim must be "
                                   "1..65535 (use {} to fill the 910B's AI Cores)",
                                   kernel, dim, kCores));
  I.launching = true;
  I.dim = dim;
  I.next = 0;
  I.kernel = kernel;
  I.block_cycles.clear();
  I.launch_gm_bytes = 0;
  I.launch_cube = false;
  I.block_stats.clear();
}

namespace {
double block_end_time(const Emulator::Impl& I) {
  double t = I.issue;
  for (double p : I.pipe) t = std::max(t, p);
  for (const auto& s : I.slots) t = std::max(t, s.busy);
  return t;
}

// The running block's stats, as one block.
PipeStats block_stats(const Emulator::Impl& I) {
  PipeStats b;
  for (int p = 0; p < PipeStats::kCount; ++p) b.busy[p] = I.busy[p];
  b.blocks = 1;
  b.ub_peak = I.ub_used;
  for (const auto& q : I.queues) {
    ++b.queues;
    if (q.num == 1) ++b.single_buffered;
  }
  return b;
}

// Folds one block's stats into its core's: busy cycles and blocks add, the rest is the most.
void add_block_stats(PipeStats& core, const PipeStats& b) {
  for (int p = 0; p < PipeStats::kCount; ++p) core.busy[p] += b.busy[p];
  core.blocks += b.blocks;
  core.ub_peak = std::max(core.ub_peak, b.ub_peak);
  core.queues = std::max(core.queues, b.queues);
  core.single_buffered = std::max(core.single_buffered, b.single_buffered);
}

// The running block ends: its time and its stats are kept for launch end.
void end_block(Emulator::Impl& I) {
  I.block_cycles.push_back(block_end_time(I));
  I.block_stats.push_back(block_stats(I));
}
}  // namespace

int32_t Emulator::next_block() {
  Impl& I = impl();
  if (I.in_block) {
    for (size_t q = 0; q < I.queues.size(); ++q)
      for (uint32_t s : I.queues[q].slots)
        if (I.slots[s].state != Slot::kFree)
          fail("TENSOR_NOT_FREED",
               fmt::format("block {} of {} ended with a tensor of its {} queue (InitBuffer #{}) "
                           "still {}: every AllocTensor needs its EnQue/DeQue and a FreeTensor "
                           "(on the AI Core a tensor never freed stalls the next AllocTensor)",
                           I.current, I.kernel, position_text(I.queues[q].pos), q + 1,
                           I.slots[s].state == Slot::kQueued ? "enqueued (never DeQue'd)"
                                                             : "allocated (never freed)"));
    end_block(I);
    I.in_block = false;
  }
  if (I.next >= I.dim) return -1;
  I.current = I.next++;
  I.in_block = true;
  ++I.serial;
  I.ub_used = 0;
  I.slots.clear();
  I.queues.clear();
  I.gm_writes.clear();
  std::fill(std::begin(I.pipe), std::end(I.pipe), 0.0);
  std::fill(std::begin(I.busy), std::end(I.busy), 0.0);
  I.issue = 0;
  std::fill(I.ub.begin(), I.ub.end(), 0xFF);  // uninitialised local memory reads as NaN
  return static_cast<int32_t>(I.current);
}

void Emulator::launch_end() {
  Impl& I = impl();
  if (!I.launching)
    fail("BAD_LAUNCH",
         "a launch ended that never began: launch kernels with "
         "ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...)");
  // A block still running when the launch ends is charged like one that ran to its end.
  if (I.in_block) end_block(I);
  I.launching = false;
  I.in_block = false;
  // Blocks run in waves over the cores of their kind; the launch ends with its slowest core,
  // and never before HBM has moved every byte the blocks copied.
  uint32_t cores = I.launch_cube ? kCubeCores : kVectorCores;
  std::vector<double> core(cores, 0.0);
  std::vector<PipeStats> stats(cores);
  for (size_t b = 0; b < I.block_cycles.size(); ++b) {
    core[b % cores] += I.block_cycles[b];
    add_block_stats(stats[b % cores], I.block_stats[b]);
  }
  size_t slowest = static_cast<size_t>(std::max_element(core.begin(), core.end()) - core.begin());
  PipeStats pipes = stats[slowest];
  double sum = 0;
  int ran = 0;
  for (size_t c = 0; c < cores; ++c)
    if (stats[c].blocks > 0) sum += core[c], ++ran;
  pipes.mean_core = ran > 0 ? sum / ran : 0;
  double hbm = I.launch_gm_bytes / (kHbmGBps / kClockGHz) + kMteStartupCycles;
  launches_.push_back(
      {I.kernel, I.dim, std::max(core[slowest], I.launch_gm_bytes > 0 ? hbm : 0.0), pipes});
}

uint64_t Emulator::workspace() {
  Impl& I = impl();
  if (!I.workspace) I.workspace = gm_alloc(32, "the system workspace");
  return I.workspace;
}

// ---------------- buffers and queues ----------------

namespace {
uint32_t make_id(uint32_t serial, size_t index) {
  return ((serial & 0xFFFu) << 20) | static_cast<uint32_t>(index + 1);
}
}  // namespace

uint32_t Emulator::init_queue(int32_t pos, int32_t depth, uint32_t num, uint32_t len) {
  Impl& I = impl();
  need_block(*this, I.in_block, "TPipe::InitBuffer");
  if (pos != kPosVecin && pos != kPosVecout && pos != kPosVeccalc)
    fail("UNSUPPORTED_API",
         fmt::format("InitBuffer of a TQue at TPosition::{}: this emulator runs the vector "
                     "positions (VECIN, VECOUT, VECCALC) in the Unified Buffer; matrix "
                     "multiplication goes through the high-level Matmul API "
                     "(lib/matmul_intf.h), which manages A1/B1/A2/B2/CO1 itself",
                     position_text(pos)));
  if (num == 0 || len == 0 || depth < 1)
    fail("QUEUE_MISUSE", fmt::format("InitBuffer with num={} len={} (depth {}): a queue needs "
                                     "at least one buffer of at least 32 bytes",
                                     num, len, depth));
  uint32_t aligned = (len + kUbAlign - 1) / kUbAlign * kUbAlign;
  uint64_t total = static_cast<uint64_t>(aligned) * num;
  if (I.ub_used + total > kUbBytes)
    fail("UB_OVERFLOW",
         fmt::format("InitBuffer of a {} queue with {} x {} bytes: the Unified Buffer holds {} "
                     "bytes per core and {} are taken by earlier InitBuffer calls; use smaller "
                     "tiles (the tile length times the element size times the buffer count, "
                     "summed over every queue and TBuf, must fit) or fewer buffers",
                     position_text(pos), num, aligned, kUbBytes, I.ub_used));
  Queue q;
  q.pos = pos;
  q.depth = depth;
  q.num = num;
  q.len = aligned;
  for (uint32_t k = 0; k < num; ++k) {
    Slot s;
    s.pos = pos;
    s.byte_off = I.ub_used;
    s.bytes = aligned;
    s.que = static_cast<int32_t>(I.queues.size());
    I.ub_used += aligned;
    q.slots.push_back(static_cast<uint32_t>(I.slots.size()));
    I.slots.push_back(s);
  }
  I.queues.push_back(std::move(q));
  I.issue += kScalarIssueCycles;
  return make_id(I.serial, I.queues.size() - 1);
}

uint32_t Emulator::init_tbuf(int32_t pos, uint32_t len) {
  Impl& I = impl();
  need_block(*this, I.in_block, "TPipe::InitBuffer");
  if (pos != kPosVecin && pos != kPosVecout && pos != kPosVeccalc)
    fail("UNSUPPORTED_API", fmt::format("InitBuffer of a TBuf at TPosition::{}: TBuf lives in the "
                                        "Unified Buffer (TPosition::VECCALC)",
                                        position_text(pos)));
  uint32_t aligned = (len + kUbAlign - 1) / kUbAlign * kUbAlign;
  if (len == 0 || I.ub_used + static_cast<uint64_t>(aligned) > kUbBytes)
    fail(len == 0 ? "QUEUE_MISUSE" : "UB_OVERFLOW",
         fmt::format("InitBuffer of a TBuf with {} bytes: the Unified Buffer holds {} bytes per "
                     "core and {} are taken by earlier InitBuffer calls; use smaller tiles",
                     len, kUbBytes, I.ub_used));
  Slot s;
  s.pos = pos;
  s.byte_off = I.ub_used;
  s.bytes = aligned;
  s.state = Slot::kBuf;
  I.ub_used += aligned;
  I.slots.push_back(s);
  I.issue += kScalarIssueCycles;
  return make_id(I.serial, I.slots.size() - 1);
}

namespace {
Queue& queue_of(Emulator& e, Emulator::Impl& I, uint32_t id, const char* api) {
  need_block(e, I.in_block, api);
  size_t k = (id & 0xFFFFFu);
  if (id == 0 || k == 0 || k > I.queues.size() || (id >> 20) != (I.serial & 0xFFFu))
    e.fail("QUEUE_MISUSE",
           fmt::format("{} on a queue that was not set up in this block: call "
                       "pipe.InitBuffer(queue, num, len) in the kernel (each block runs the "
                       "kernel from the start) before using the queue",
                       api));
  return I.queues[k - 1];
}

evk_lt tensor_of(uint32_t slot_index, uint32_t serial, const Slot& s, int32_t dtype) {
  size_t es = dtype_bytes(dtype);
  return {make_id(serial, slot_index), 0, static_cast<uint32_t>(es ? s.bytes / es : 0), dtype};
}
}  // namespace

void Emulator::alloc(uint32_t que, int32_t dtype, evk_lt* out) {
  Impl& I = impl();
  Queue& q = queue_of(*this, I, que, "AllocTensor");
  // Buffers are handed out in rotation, as the queue's ring does on the AI Core: with two
  // buffers, tile i+1 lands in the other buffer even when tile i's was freed already, which is
  // what lets its copy-in overlap tile i's compute.
  for (uint32_t k = 0; k < q.num; ++k) {
    uint32_t s = q.slots[(q.next + k) % q.num];
    if (I.slots[s].state == Slot::kFree) {
      q.next = (q.next + k + 1) % q.num;
      I.slots[s].state = Slot::kAllocated;
      *out = tensor_of(s, I.serial, I.slots[s], dtype);
      I.issue += kScalarIssueCycles;
      return;
    }
  }
  fail("QUEUE_ALLOC_EXHAUSTED",
       fmt::format("AllocTensor on a {} queue whose {} buffer(s) are all in use: each "
                   "AllocTensor needs a FreeTensor before the buffer can be allocated again "
                   "(on the AI Core this AllocTensor would wait forever); free the tensor after "
                   "its last use, or InitBuffer the queue with more buffers",
                   position_text(q.pos), q.num));
}

namespace {
Slot& slot_of(Emulator& e, Emulator::Impl& I, const evk_lt* t, const char* api) {
  need_block(e, I.in_block, api);
  if (t->slot == 0xFFFFFFFFu)
    e.fail("UNINITIALIZED_TENSOR",
           fmt::format("{} on a LocalTensor that was never allocated: get it from AllocTensor, "
                       "DeQue or TBuf::Get first",
                       api));
  size_t k = t->slot & 0xFFFFFu;
  if (k == 0 || k > I.slots.size() || (t->slot >> 20) != (I.serial & 0xFFFu))
    e.fail("STALE_TENSOR",
           fmt::format("{} on a LocalTensor from another block or launch: local memory belongs "
                       "to one block; allocate tensors inside the kernel",
                       api));
  Slot& s = I.slots[k - 1];
  if (s.state == Slot::kFree)
    e.fail("USE_AFTER_FREE",
           fmt::format("{} on a LocalTensor after FreeTensor: its buffer may already hold the "
                       "next tile; use tensors between AllocTensor/DeQue and FreeTensor only",
                       api));
  return s;
}

uint32_t slot_index(const evk_lt* t) {
  return (t->slot & 0xFFFFFu) - 1;
}
}  // namespace

void Emulator::enque(uint32_t que, const evk_lt* t) {
  Impl& I = impl();
  Queue& q = queue_of(*this, I, que, "EnQue");
  Slot& s = slot_of(*this, I, t, "EnQue");
  if (s.que < 0 || &I.queues[s.que] != &q)
    fail("QUEUE_MISUSE",
         "EnQue of a tensor that was not allocated from this queue: EnQue a "
         "tensor into the queue it was AllocTensor'ed from");
  if (s.state == Slot::kQueued)
    fail("QUEUE_MISUSE", "EnQue of a tensor that is already enqueued: DeQue it first");
  if (static_cast<int32_t>(q.fifo.size()) >= q.depth)
    fail("QUEUE_FULL", fmt::format("EnQue on a {} queue of depth {} that already holds {} "
                                   "tensor(s): DeQue before enqueuing more, or declare the "
                                   "TQue with a larger depth",
                                   position_text(q.pos), q.depth, q.fifo.size()));
  s.state = Slot::kQueued;
  q.fifo.push_back(slot_index(t));
  I.issue += kScalarIssueCycles;
}

void Emulator::deque(uint32_t que, int32_t dtype, evk_lt* out) {
  Impl& I = impl();
  Queue& q = queue_of(*this, I, que, "DeQue");
  if (q.fifo.empty())
    fail("QUEUE_EMPTY", fmt::format("DeQue on an empty {} queue: every DeQue needs an EnQue "
                                    "of the same queue before it (on the AI Core this DeQue "
                                    "would wait forever)",
                                    position_text(q.pos)));
  uint32_t s = q.fifo.front();
  q.fifo.pop_front();
  I.slots[s].state = Slot::kDequeued;
  *out = tensor_of(s, I.serial, I.slots[s], dtype);
  I.issue += kScalarIssueCycles;
}

void Emulator::free_tensor(uint32_t que, const evk_lt* t) {
  Impl& I = impl();
  Queue& q = queue_of(*this, I, que, "FreeTensor");
  Slot& s = slot_of(*this, I, t, "FreeTensor");
  if (s.que < 0 || &I.queues[s.que] != &q)
    fail("QUEUE_MISUSE", "FreeTensor of a tensor that was not allocated from this queue");
  if (s.state == Slot::kQueued)
    fail("QUEUE_MISUSE", "FreeTensor of a tensor that is still enqueued: DeQue it first");
  s.state = Slot::kFree;
  I.issue += kScalarIssueCycles;
}

void Emulator::tbuf_get(uint32_t buf, int32_t dtype, uint32_t count, evk_lt* out) {
  Impl& I = impl();
  need_block(*this, I.in_block, "TBuf::Get");
  size_t k = buf & 0xFFFFFu;
  if (buf == 0 || k == 0 || k > I.slots.size() || (buf >> 20) != (I.serial & 0xFFFu) ||
      I.slots[k - 1].state != Slot::kBuf)
    fail("QUEUE_MISUSE",
         "TBuf::Get on a TBuf that was not set up in this block: call "
         "pipe.InitBuffer(buf, bytes) in the kernel first");
  *out = tensor_of(static_cast<uint32_t>(k - 1), I.serial, I.slots[k - 1], dtype);
  if (count > 0) {
    if (count > out->len)
      fail("UB_OUT_OF_BOUNDS", fmt::format("TBuf::Get<{}>({}) on a TBuf of {} bytes",
                                           dtype_text(dtype), count, I.slots[k - 1].bytes));
    out->len = count;
  }
}

void Emulator::check_sub(const evk_lt* t, uint32_t off) {
  Impl& I = impl();
  slot_of(*this, I, t, "LocalTensor::operator[]");
  if (off > t->len)
    fail("UB_OUT_OF_BOUNDS",
         fmt::format("tensor[{}] on a LocalTensor of {} elements", off, t->len));
}

// ---------------- checks shared by the operations ----------------

namespace {
struct Operand {
  Slot* slot;
  uint8_t* ptr;
};

Operand operand(Emulator& e, Emulator::Impl& I, const evk_lt* t, uint32_t n, const char* api,
                const char* role, bool aligned = true) {
  Slot& s = slot_of(e, I, t, api);
  size_t es = dtype_bytes(t->dtype);
  if (!es)
    e.fail("DTYPE_UNSUPPORTED", fmt::format("{}: {} is not a supported element type", api, role));
  uint64_t end = (static_cast<uint64_t>(t->off) + n) * es;
  if (n > t->len || end > s.bytes)
    e.fail("UB_OUT_OF_BOUNDS",
           fmt::format("{}: {} elements of the {} tensor, which holds {} (from element {} of a "
                       "{}-byte buffer): the count must fit the tensor; a buffer holds len/"
                       "sizeof(T) elements of InitBuffer's len",
                       api, n, role, t->len, t->off, s.bytes));
  uint64_t addr = s.byte_off + static_cast<uint64_t>(t->off) * es;
  if (aligned && addr % kUbAlign != 0)
    e.fail("UNALIGNED_ADDRESS",
           fmt::format("{}: the {} tensor starts {} bytes into a 32-byte block (element offset "
                       "{} of {}): operands in the Unified Buffer must start 32-byte aligned, "
                       "so offsets into a tensor must be multiples of {} elements",
                       api, role, addr % kUbAlign, t->off, dtype_text(t->dtype), kUbAlign / es));
  return {&s, I.ub.data() + addr};
}

void need_dtype(Emulator& e, const char* api, int32_t d, std::initializer_list<int32_t> ok) {
  for (int32_t x : ok)
    if (x == d) return;
  std::string list;
  for (int32_t x : ok) list += (list.empty() ? "" : ", ") + std::string(dtype_text(x));
  e.fail("DTYPE_UNSUPPORTED",
         fmt::format("{} does not support {} tensors (supported: {})", api, dtype_text(d), list));
}

// The scheduler: when an operation on `p` lasting `dur` cycles that reads `reads` and writes
// `writes` can start, and its effect on the pipes and the slots.
double schedule(Emulator::Impl& I, int p, double dur, std::initializer_list<Slot*> reads,
                std::initializer_list<Slot*> writes, double after = 0) {
  double start = std::max({I.issue, I.pipe[p], after});
  for (Slot* r : reads) start = std::max(start, r->ready);
  for (Slot* w : writes) start = std::max(start, w->busy);
  double end = start + dur;
  I.pipe[p] = end;
  for (Slot* r : reads) r->busy = std::max(r->busy, end);
  for (Slot* w : writes) w->ready = end, w->busy = std::max(w->busy, end);
  I.issue += kScalarIssueCycles;
  I.busy[p] += dur;
  I.busy[PipeStats::kScalar] += kScalarIssueCycles;
  return end;
}

double vec_cycles(uint64_t bytes, uint32_t per_repeat) {
  return kVecStartupCycles +
         static_cast<double>(ceil_div(std::max<uint64_t>(bytes, 1), kVecBytesPerRepeat)) *
             per_repeat;
}

double gm_ready(const Emulator::Impl& I, uint64_t lo, uint64_t hi) {
  double t = 0;
  for (const auto& w : I.gm_writes)
    if (w.lo < hi && lo < w.hi) t = std::max(t, w.end);
  return t;
}
}  // namespace

// The bytes [addr, addr + bytes) of global memory, checked against the allocation the address
// lies in (its round-up included). The GlobalTensor's size is not a bound: the runtime does not
// check it either, and a kernel may read past it within the allocation.
static uint8_t* gm_span(Emulator& e, Emulator::Impl& I, const evk_gt* g, uint64_t elems,
                        const char* api) {
  size_t es = dtype_bytes(g->dtype);
  uint64_t bytes = elems * es;
  GmBuf* b = find_gm(I.gm, g->addr);
  if (!b || g->addr + bytes > b->base + b->padded)
    e.fail("GM_OUT_OF_BOUNDS",
           b ? fmt::format("{}: bytes {}..{} of {} ({} bytes, {} with the allocator's round-up "
                           "to 32 bytes plus 32): the access runs past the end of the tensor "
                           "(check the block offset and the last tile's length)",
                           api, g->addr - b->base, g->addr - b->base + bytes, b->name, b->bytes,
                           b->padded)
             : fmt::format("{}: address {:#x} is not in any tensor's global memory: pass the "
                           "GM_ADDR arguments the host received, offset within their tensors",
                           api, g->addr));
  return b->data.data() + (g->addr - b->base);
}

void Emulator::gm_check(const evk_gt* t) {
  Impl& I = impl();
  if (!I.in_block) return;  // host code may build GlobalTensors; they are checked when used
  GmBuf* b = find_gm(I.gm, t->addr);
  if (!b || t->addr > b->base + b->padded)
    fail("GM_OUT_OF_BOUNDS",
         b ? fmt::format("SetGlobalBuffer or GlobalTensor::operator[] at byte {} of {} ({} "
                         "bytes): the offset is past the end of the tensor",
                         t->addr - b->base, b->name, b->bytes)
           : fmt::format("SetGlobalBuffer with address {:#x}, which is not in any tensor's "
                         "global memory: use the GM_ADDR arguments the host received",
                         t->addr));
}

// ---------------- data movement ----------------

void Emulator::copy(int32_t dir, const evk_lt* lt, const evk_lt* lt2, const evk_gt* gt,
                    uint32_t count) {
  Impl& I = impl();
  const char* api = "DataCopy";
  size_t es = dtype_bytes(lt->dtype);
  uint64_t bytes = static_cast<uint64_t>(count) * es;
  if (count == 0 || bytes % kUbAlign != 0)
    fail("UNALIGNED_COPY",
         fmt::format("DataCopy of {} {} elements ({} bytes): DataCopy moves whole 32-byte "
                     "blocks, so count * sizeof(T) must be a positive multiple of 32 (a multiple "
                     "of {} elements); copy the aligned part with DataCopy and the tail with "
                     "DataCopyPad, or choose tile lengths that are multiples of {}",
                     count, dtype_text(lt->dtype), bytes, kUbAlign / std::max<size_t>(es, 1),
                     kUbAlign / std::max<size_t>(es, 1)));
  Operand l = operand(*this, I, lt, count, api, dir == 2 ? "destination" : "local");
  if (dir == 2) {
    Operand s = operand(*this, I, lt2, count, api, "source");
    if (numerics_) std::memmove(l.ptr, s.ptr, bytes);
    schedule(I, kVec, vec_cycles(bytes, kVecCyclesSimple), {s.slot}, {l.slot});
    return;
  }
  uint8_t* g = gm_span(*this, I, gt, count, api);
  I.launch_gm_bytes += static_cast<double>(bytes);
  double dur = kMteStartupCycles + static_cast<double>(bytes) / I.bytes_per_cycle();
  if (dir == 0) {
    if (numerics_) std::memcpy(l.ptr, g, bytes);
    schedule(I, kMte2, dur, {}, {l.slot}, gm_ready(I, gt->addr, gt->addr + bytes));
  } else {
    if (numerics_) std::memcpy(g, l.ptr, bytes);
    double end = schedule(I, kMte3, dur, {l.slot}, {});
    I.gm_writes.push_back({gt->addr, gt->addr + bytes, end});
  }
}

void Emulator::copy_blocks(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                           uint32_t len, uint32_t src_stride, uint32_t dst_stride) {
  Impl& I = impl();
  const char* api = "DataCopy (DataCopyParams)";
  size_t es = dtype_bytes(lt->dtype);
  if (count == 0 || len == 0)
    fail("UNALIGNED_COPY",
         "DataCopy with DataCopyParams of blockCount 0 or blockLen 0: blockLen "
         "counts 32-byte blocks per burst and must be at least 1");
  uint32_t per_block = kUbAlign / static_cast<uint32_t>(es);
  uint64_t burst = static_cast<uint64_t>(len) * per_block;  // elements per burst
  uint64_t gm_step = burst + static_cast<uint64_t>(dir == 0 ? src_stride : dst_stride) * per_block;
  uint64_t ub_step = burst + static_cast<uint64_t>(dir == 0 ? dst_stride : src_stride) * per_block;
  uint64_t ub_elems = (count - 1) * ub_step + burst, gm_elems = (count - 1) * gm_step + burst;
  Operand l = operand(*this, I, lt, static_cast<uint32_t>(std::min<uint64_t>(ub_elems, UINT32_MAX)),
                      api, "local");
  uint8_t* g = gm_span(*this, I, gt, gm_elems, api);
  for (uint32_t b = 0; numerics_ && b < count; ++b) {
    uint8_t* lp = l.ptr + b * ub_step * es;
    uint8_t* gp = g + b * gm_step * es;
    if (dir == 0)
      std::memcpy(lp, gp, burst * es);
    else
      std::memcpy(gp, lp, burst * es);
  }
  I.launch_gm_bytes += static_cast<double>(count * burst * es);
  double dur = kMteStartupCycles + (count - 1.0) * kMteBurstCycles +
               static_cast<double>(count * burst * es) / I.bytes_per_cycle();
  if (dir == 0) {
    schedule(I, kMte2, dur, {}, {l.slot}, gm_ready(I, gt->addr, gt->addr + gm_elems * es));
  } else {
    double end = schedule(I, kMte3, dur, {l.slot}, {});
    I.gm_writes.push_back({gt->addr, gt->addr + gm_elems * es, end});
  }
}

void Emulator::copy_pad(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                        uint32_t bytes, uint32_t src_stride, uint32_t dst_stride, int32_t pad,
                        uint32_t left, uint32_t right, double value) {
  Impl& I = impl();
  const char* api = "DataCopyPad";
  size_t es = dtype_bytes(lt->dtype);
  if (count == 0 || bytes == 0 || bytes % es != 0)
    fail("UNALIGNED_COPY", fmt::format("DataCopyPad with blockCount {} and blockLen {} bytes: "
                                       "blockLen is in bytes and must be a positive multiple "
                                       "of sizeof(T) = {}",
                                       count, bytes, es));
  // Local side: each block starts at a 32-byte boundary; strides count 32-byte blocks.
  uint64_t local_block =
      (static_cast<uint64_t>(bytes) + (pad ? (left + right) * es : 0) + kUbAlign - 1) / kUbAlign *
      kUbAlign;
  uint64_t ub_step =
      local_block + static_cast<uint64_t>(dir == 0 ? dst_stride : src_stride) * kUbAlign;
  uint64_t gm_step = bytes + static_cast<uint64_t>(dir == 0 ? src_stride : dst_stride);
  uint64_t ub_bytes = (count - 1) * ub_step + local_block;
  uint64_t gm_bytes = (count - 1) * gm_step + bytes;
  Operand l = operand(*this, I, lt, static_cast<uint32_t>(ub_bytes / es), api, "local");
  uint8_t* g = gm_span(*this, I, gt, gm_bytes / es, api);
  for (uint32_t b = 0; numerics_ && b < count; ++b) {
    uint8_t* lp = l.ptr + b * ub_step;
    uint8_t* gp = g + b * gm_step;
    if (dir == 0) {
      uint64_t lead = pad ? left * es : 0;
      if (pad)
        for (uint64_t k = 0; k < local_block / es; ++k) store(lp + k * es, lt->dtype, value);
      std::memcpy(lp + lead, gp, bytes);
    } else {
      std::memcpy(gp, lp, bytes);
    }
  }
  I.launch_gm_bytes += static_cast<double>(count) * bytes;
  double dur = kMteStartupCycles + (count - 1.0) * kMteBurstCycles +
               static_cast<double>(count) * bytes / I.bytes_per_cycle();
  if (dir == 0) {
    schedule(I, kMte2, dur, {}, {l.slot}, gm_ready(I, gt->addr, gt->addr + gm_bytes));
  } else {
    double end = schedule(I, kMte3, dur, {l.slot}, {});
    I.gm_writes.push_back({gt->addr, gt->addr + gm_bytes, end});
  }
}

// ---------------- vector compute ----------------

namespace {
const char* op_name(int32_t op) {
  static const char* names[] = {"Add",        "Sub",  "Mul",       "Div",       "Max",
                                "Min",        "Adds", "Muls",      "Maxs",      "Mins",
                                "Exp",        "Ln",   "Abs",       "Sqrt",      "Rsqrt",
                                "Reciprocal", "Relu", "ReduceSum", "ReduceMax", "ReduceMin",
                                "Erf",        "Sin",  "Cos",       "ShiftLeft", "ShiftRight"};
  return op >= 0 && op <= EVK_ACL_SHRS ? names[op] : "an unknown vector operation";
}

double apply2(int32_t op, double a, double b, bool integer) {
  switch (op) {
    case EVK_ACL_ADD:
    case EVK_ACL_ADDS:
      return a + b;
    case EVK_ACL_SUB:
      return a - b;
    case EVK_ACL_MUL:
    case EVK_ACL_MULS:
      return a * b;
    case EVK_ACL_DIV:
      return a / b;
    case EVK_ACL_MAX:
    case EVK_ACL_MAXS:
      return std::max(a, b);
    case EVK_ACL_MIN:
    case EVK_ACL_MINS:
      return std::min(a, b);
    case EVK_ACL_SHLS:
      return static_cast<double>(
          static_cast<int32_t>(static_cast<uint32_t>(a) << (static_cast<uint32_t>(b) & 31)));
    case EVK_ACL_SHRS:  // arithmetic on signed integers, as the vector unit's shift
      return static_cast<double>(static_cast<int32_t>(a) >> (static_cast<uint32_t>(b) & 31));
    default:
      (void)integer;
      return 0;
  }
}

template <class T>
void map_binary(int32_t op, T* d, const T* a, const T* b, uint32_t n, double s, bool scalar) {
  for (uint32_t i = 0; i < n; ++i) {
    double x = static_cast<double>(a[i]);
    double y = scalar ? s : static_cast<double>(b[i]);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, _Float16>) {
      float xf = static_cast<float>(x), yf = static_cast<float>(y);
      float r;
      switch (op) {
        case EVK_ACL_ADD:
        case EVK_ACL_ADDS:
          r = xf + yf;
          break;
        case EVK_ACL_SUB:
          r = xf - yf;
          break;
        case EVK_ACL_MUL:
        case EVK_ACL_MULS:
          r = xf * yf;
          break;
        case EVK_ACL_DIV:
          r = xf / yf;
          break;
        case EVK_ACL_MAX:
        case EVK_ACL_MAXS:
          r = std::isnan(xf) || std::isnan(yf) ? xf + yf : std::fmax(xf, yf);  // NaN propagates
          break;
        default:
          r = std::isnan(xf) || std::isnan(yf) ? xf + yf : std::fmin(xf, yf);
          break;
      }
      d[i] = static_cast<T>(r);
    } else {
      int64_t r = static_cast<int64_t>(apply2(op, x, y, true));
      d[i] = static_cast<T>(static_cast<int32_t>(static_cast<uint32_t>(r)));
    }
  }
}

template <class T>
void map_unary(int32_t op, T* d, const T* a, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    float x = static_cast<float>(a[i]);
    float r;
    switch (op) {
      case EVK_ACL_EXP:
        r = std::exp(x);
        break;
      case EVK_ACL_LN:
        r = std::log(x);
        break;
      case EVK_ACL_ABS:
        r = std::fabs(x);
        break;
      case EVK_ACL_SQRT:
        r = std::sqrt(x);
        break;
      case EVK_ACL_RSQRT:
        r = 1.0f / std::sqrt(x);
        break;
      case EVK_ACL_RECIPROCAL:
        r = 1.0f / x;
        break;
      case EVK_ACL_ERF:
        r = std::erf(x);
        break;
      case EVK_ACL_SIN:
        r = std::sin(x);
        break;
      case EVK_ACL_COS:
        r = std::cos(x);
        break;
      default:
        r = x > 0 || std::isnan(x) ? x : 0.0f;  // NaN propagates, as in PyTorch
        break;
    }
    if constexpr (std::is_same_v<T, int32_t>) {
      d[i] = op == EVK_ACL_ABS ? std::abs(a[i]) : std::max<int32_t>(a[i], 0);
    } else {
      d[i] = static_cast<T>(r);
    }
  }
}
}  // namespace

#define EVK_DISPATCH(dtype, CALL) \
  switch (dtype) {                \
    case EVK_F32: {               \
      using T = float;            \
      CALL;                       \
      break;                      \
    }                             \
    case EVK_F16: {               \
      using T = _Float16;         \
      CALL;                       \
      break;                      \
    }                             \
    case EVK_I32: {               \
      using T = int32_t;          \
      CALL;                       \
      break;                      \
    }                             \
    default:                      \
      break;                      \
  }

void Emulator::binary(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* b, uint32_t n) {
  Impl& I = impl();
  const char* api = op_name(op);
  if (op == EVK_ACL_DIV)
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32});
  else
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  if (a->dtype != d->dtype || b->dtype != d->dtype)
    fail("DTYPE_UNSUPPORTED", fmt::format("{} needs the same element type for all operands", api));
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "first source");
  Operand ob = operand(*this, I, b, n, api, "second source");
  if (numerics_)
    EVK_DISPATCH(d->dtype,
               map_binary<T>(op, reinterpret_cast<T*>(od.ptr), reinterpret_cast<const T*>(oa.ptr),
                             reinterpret_cast<const T*>(ob.ptr), n, 0, false))
  uint32_t cpr = op == EVK_ACL_DIV ? kVecCyclesDiv : kVecCyclesSimple;
  schedule(I, kVec, vec_cycles(n * dtype_bytes(d->dtype), cpr), {oa.slot, ob.slot}, {od.slot});
}

void Emulator::scalar_op(int32_t op, const evk_lt* d, const evk_lt* a, double s, uint32_t n) {
  Impl& I = impl();
  const char* api = op_name(op);
  if (op == EVK_ACL_SHLS || op == EVK_ACL_SHRS)
    need_dtype(*this, api, d->dtype, {EVK_I32});
  else
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  if (a->dtype != d->dtype)
    fail("DTYPE_UNSUPPORTED", fmt::format("{} needs the same element type for both tensors", api));
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "source");
  if (numerics_)
    EVK_DISPATCH(d->dtype, map_binary<T>(op, reinterpret_cast<T*>(od.ptr),
                                       reinterpret_cast<const T*>(oa.ptr), nullptr, n, s, true))
  schedule(I, kVec, vec_cycles(n * dtype_bytes(d->dtype), kVecCyclesSimple), {oa.slot}, {od.slot});
}

void Emulator::unary(int32_t op, const evk_lt* d, const evk_lt* a, uint32_t n) {
  Impl& I = impl();
  const char* api = op_name(op);
  if (op == EVK_ACL_ABS || op == EVK_ACL_RELU)
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  else
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32});
  if (a->dtype != d->dtype)
    fail("DTYPE_UNSUPPORTED", fmt::format("{} needs the same element type for both tensors", api));
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "source");
  if (numerics_)
    EVK_DISPATCH(d->dtype, map_unary<T>(op, reinterpret_cast<T*>(od.ptr),
                                      reinterpret_cast<const T*>(oa.ptr), n))
  bool trans = op == EVK_ACL_EXP || op == EVK_ACL_LN || op == EVK_ACL_SQRT || op == EVK_ACL_RSQRT ||
               op == EVK_ACL_RECIPROCAL;
  // Erf, Sin and Cos are library APIs: a range reduction and a polynomial, about a dozen
  // vector instructions (model: three transcendental passes).
  bool poly = op == EVK_ACL_ERF || op == EVK_ACL_SIN || op == EVK_ACL_COS;
  uint32_t cpr =
      poly ? 3 * kVecCyclesTranscendental : (trans ? kVecCyclesTranscendental : kVecCyclesSimple);
  double dur = vec_cycles(n * dtype_bytes(d->dtype), cpr) + (poly ? 2.0 * kVecStartupCycles : 0);
  schedule(I, kVec, dur, {oa.slot}, {od.slot});
}

void Emulator::duplicate(const evk_lt* d, double s, uint32_t n) {
  Impl& I = impl();
  need_dtype(*this, "Duplicate", d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  Operand od = operand(*this, I, d, n, "Duplicate", "destination");
  size_t es = dtype_bytes(d->dtype);
  for (uint32_t i = 0; i < n; ++i) store(od.ptr + i * es, d->dtype, s);
  schedule(I, kVec, vec_cycles(n * es, kVecCyclesSimple), {}, {od.slot});
}

void Emulator::cast(const evk_lt* d, const evk_lt* a, int32_t round, uint32_t n) {
  Impl& I = impl();
  need_dtype(*this, "Cast (destination)", d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  need_dtype(*this, "Cast (source)", a->dtype, {EVK_F16, EVK_F32, EVK_I32});
  if (d->dtype == a->dtype)
    fail("DTYPE_UNSUPPORTED",
         "Cast between tensors of the same type: use DataCopy or Adds(dst, src, 0, n)");
  bool to_int = d->dtype == EVK_I32;
  if (to_int && round == 0)
    fail("DTYPE_UNSUPPORTED",
         fmt::format("Cast from {} to int32_t with RoundMode::CAST_NONE: a float to "
                     "integer Cast needs a rounding mode (CAST_RINT, CAST_FLOOR, "
                     "CAST_CEIL, CAST_ROUND or CAST_TRUNC)",
                     dtype_text(a->dtype)));
  Operand od = operand(*this, I, d, n, "Cast", "destination");
  Operand oa = operand(*this, I, a, n, "Cast", "source");
  size_t ed = dtype_bytes(d->dtype), ea = dtype_bytes(a->dtype);
  for (uint32_t i = 0; i < n; ++i) {
    double x = load(oa.ptr + i * ea, a->dtype);
    if (to_int) {
      switch (round) {
        case 2:
          x = std::floor(x);
          break;
        case 3:
          x = std::ceil(x);
          break;
        case 4:
          x = std::round(x);
          break;
        case 5:
          x = std::trunc(x);
          break;
        default:
          x = std::nearbyint(x);
          break;
      }
    }
    store(od.ptr + i * ed, d->dtype, x);
  }
  schedule(I, kVec, vec_cycles(n * std::max(ed, ea), kVecCyclesSimple), {oa.slot}, {od.slot});
}

void Emulator::compare(const evk_lt* mask, const evk_lt* a, const evk_lt* b, double s,
                       bool with_scalar, int32_t mode, uint32_t n) {
  Impl& I = impl();
  const char* api = with_scalar ? "CompareScalar" : "Compare";
  need_dtype(*this, api, a->dtype, {EVK_F16, EVK_F32, EVK_I32});
  size_t es = dtype_bytes(a->dtype);
  if ((n * es) % kVecBytesPerRepeat != 0)
    fail("UNALIGNED_COPY", fmt::format("{} of {} elements ({} bytes): Compare works on whole "
                                       "256-byte repeats, so count * sizeof(T) must be a multiple "
                                       "of 256 ({} elements); pad the tile",
                                       api, n, n * es, kVecBytesPerRepeat / es));
  if (mask->dtype != EVK_U8)
    fail("DTYPE_UNSUPPORTED",
         fmt::format("{}: the mask destination must be a LocalTensor<uint8_t>", api));
  Operand om = operand(*this, I, mask, (n + 7) / 8, api, "mask");
  Operand oa = operand(*this, I, a, n, api, "first source");
  Operand ob = with_scalar ? oa : operand(*this, I, b, n, api, "second source");
  for (uint32_t i = 0; i < n; i += 8) {
    uint8_t bits = 0;
    for (uint32_t k = 0; k < 8 && i + k < n; ++k) {
      double x = load(oa.ptr + (i + k) * es, a->dtype);
      double y = with_scalar ? s : load(ob.ptr + (i + k) * es, a->dtype);
      bool r = mode == 0   ? x < y
               : mode == 1 ? x > y
               : mode == 2 ? x == y
               : mode == 3 ? x <= y
               : mode == 4 ? x >= y
                           : x != y;
      bits |= static_cast<uint8_t>(r) << k;
    }
    om.ptr[i / 8] = bits;
  }
  schedule(I, kVec, vec_cycles(n * es, kVecCyclesSimple), {oa.slot, ob.slot}, {om.slot});
}

void Emulator::select(const evk_lt* d, const evk_lt* mask, const evk_lt* a, const evk_lt* b,
                      double s, int32_t mode, uint32_t n) {
  Impl& I = impl();
  const char* api = "Select";
  need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32});
  bool scalar = b == nullptr;
  if (scalar != (mode == 1))
    fail("QUEUE_MISUSE",
         "Select: use SELMODE::VSEL_TENSOR_SCALAR_MODE with a scalar second source "
         "and SELMODE::VSEL_TENSOR_TENSOR_MODE with a tensor");
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand om = operand(*this, I, mask, (n + 7) / 8, api, "mask");
  Operand oa = operand(*this, I, a, n, api, "first source");
  Operand ob = scalar ? oa : operand(*this, I, b, n, api, "second source");
  size_t es = dtype_bytes(d->dtype);
  for (uint32_t i = 0; i < n; ++i) {
    bool bit = (om.ptr[i / 8] >> (i % 8)) & 1;
    double v =
        bit ? load(oa.ptr + i * es, d->dtype) : (scalar ? s : load(ob.ptr + i * es, d->dtype));
    store(od.ptr + i * es, d->dtype, v);
  }
  schedule(I, kVec, vec_cycles(n * es, kVecCyclesSimple), {om.slot, oa.slot, ob.slot}, {od.slot});
}

void Emulator::reduce(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* work, uint32_t n,
                      bool index) {
  Impl& I = impl();
  const char* api = op_name(op);
  need_dtype(*this, api, a->dtype, {EVK_F16, EVK_F32});
  if (d->dtype != a->dtype || work->dtype != a->dtype)
    fail("DTYPE_UNSUPPORTED",
         fmt::format("{} needs the same element type for dst, src and the work tensor", api));
  size_t es = dtype_bytes(a->dtype);
  uint32_t repeats = ceil_div(static_cast<uint64_t>(n) * es, kVecBytesPerRepeat);
  uint32_t work_need = (repeats * static_cast<uint32_t>(es) + kUbAlign - 1) / kUbAlign * kUbAlign /
                       static_cast<uint32_t>(es);
  if (n == 0) fail("UB_OUT_OF_BOUNDS", fmt::format("{} of 0 elements", api));
  Operand od = operand(*this, I, d, index ? 2 : 1, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "source");
  if (work->len < work_need)
    fail("REDUCE_WORKSPACE", fmt::format("{} of {} elements needs a work tensor of at least {} "
                                         "elements (one per 256-byte repeat, rounded up to 32 "
                                         "bytes); the work tensor holds {}",
                                         api, n, work_need, work->len));
  Operand ow = operand(*this, I, work, work_need, api, "work");
  double acc = load(oa.ptr, a->dtype);
  uint32_t at = 0;
  for (uint32_t i = 1; i < n; ++i) {
    double x = load(oa.ptr + i * es, a->dtype);
    if (op == EVK_ACL_RSUM)
      acc = static_cast<float>(acc + x);
    else if (op == EVK_ACL_RMAX ? x > acc : x < acc)
      acc = x, at = i;
  }
  store(od.ptr, d->dtype, acc);
  if (index && op != EVK_ACL_RSUM) {
    uint32_t bits = at;
    std::memcpy(od.ptr + es, &bits, es);  // the index's integer bits, as the API stores it
  }
  schedule(I, kVec,
           vec_cycles(static_cast<uint64_t>(n) * es, kVecCyclesSimple) + kVecCyclesReduceTail,
           {oa.slot}, {od.slot, ow.slot});
}

void Emulator::whole_reduce(int32_t op, const evk_lt* d, const evk_lt* a, int32_t mask,
                            int32_t repeat, int32_t dst_rep, int32_t src_blk, int32_t src_rep,
                            int32_t order) {
  Impl& I = impl();
  const char* api = op == EVK_ACL_RSUM   ? "WholeReduceSum"
                    : op == EVK_ACL_RMAX ? "WholeReduceMax"
                                         : "WholeReduceMin";
  need_dtype(*this, api, a->dtype, {EVK_F16, EVK_F32});
  size_t es = dtype_bytes(a->dtype);
  int32_t per_repeat = static_cast<int32_t>(kVecBytesPerRepeat / es),
          per_block = static_cast<int32_t>(kUbAlign / es);
  if (mask < 1 || mask > per_repeat || repeat < 1 || repeat > 255 || dst_rep < 0 || src_blk < 0 ||
      src_rep < 0)
    fail("QUEUE_MISUSE", fmt::format("{} with mask {} and repeatTimes {}: mask counts the elements "
                                     "reduced per repeat (1..{} for {}), repeatTimes is 1..255, "
                                     "strides are non-negative",
                                     api, mask, repeat, per_repeat, dtype_text(a->dtype)));
  int32_t blocks = (mask + per_block - 1) / per_block;
  uint64_t src_need = static_cast<uint64_t>(repeat - 1) * src_rep * per_block +
                      static_cast<uint64_t>(blocks - 1) * src_blk * per_block + per_block;
  int32_t entry = (op == EVK_ACL_RSUM || order == 2 || order == 3) ? 1 : 2;
  uint64_t dst_need = static_cast<uint64_t>(repeat - 1) * dst_rep * entry + entry;
  Operand od = operand(*this, I, d, static_cast<uint32_t>(dst_need), api, "destination", false);
  Operand oa = operand(*this, I, a, static_cast<uint32_t>(std::min<uint64_t>(src_need, a->len)),
                       api, "source");
  if (src_need > a->len)
    fail("UB_OUT_OF_BOUNDS",
         fmt::format("{}: the repeats read {} elements of a source tensor of {}", api, src_need,
                     a->len));
  for (int32_t r = 0; r < repeat; ++r) {
    double acc = 0;
    int32_t at = 0;
    for (int32_t k = 0; k < mask; ++k) {
      uint64_t e = static_cast<uint64_t>(r) * src_rep * per_block +
                   static_cast<uint64_t>(k / per_block) * src_blk * per_block + k % per_block;
      double x = load(oa.ptr + e * es, a->dtype);
      if (k == 0)
        acc = x;
      else if (op == EVK_ACL_RSUM)
        acc = static_cast<float>(acc + x);
      else if (op == EVK_ACL_RMAX ? x > acc : x < acc)
        acc = x, at = k;
    }
    uint8_t* out = od.ptr + static_cast<uint64_t>(r) * dst_rep * entry * es;
    uint32_t bits = static_cast<uint32_t>(at);
    if (op == EVK_ACL_RSUM || order == 2)
      store(out, d->dtype, acc);
    else if (order == 3)
      std::memcpy(out, &bits, es);
    else if (order == 0)
      store(out, d->dtype, acc), std::memcpy(out + es, &bits, es);
    else
      std::memcpy(out, &bits, es), store(out + es, d->dtype, acc);
  }
  schedule(I, kVec, kVecStartupCycles + 2.0 * repeat, {oa.slot}, {od.slot});
}

// ---------------- scalar access ----------------

double Emulator::get_value(const evk_lt* t, uint32_t i) {
  Impl& I = impl();
  Operand o = operand(*this, I, t, 0, "LocalTensor::GetValue", "read", false);
  if (i >= t->len)
    fail("UB_OUT_OF_BOUNDS",
         fmt::format("GetValue({}) on a LocalTensor of {} elements", i, t->len));
  // The scalar unit waits for the tensor's producer (a pipe barrier), then reads.
  I.issue = std::max(I.issue, o.slot->ready) + kScalarUbAccessCycles;
  I.busy[PipeStats::kScalar] += kScalarUbAccessCycles;
  o.slot->busy = std::max(o.slot->busy, I.issue);
  return load(o.ptr + static_cast<uint64_t>(i) * dtype_bytes(t->dtype), t->dtype);
}

void Emulator::set_value(const evk_lt* t, uint32_t i, double v) {
  Impl& I = impl();
  Operand o = operand(*this, I, t, 0, "LocalTensor::SetValue", "written", false);
  if (i >= t->len)
    fail("UB_OUT_OF_BOUNDS",
         fmt::format("SetValue({}) on a LocalTensor of {} elements", i, t->len));
  I.issue = std::max(I.issue, o.slot->busy) + kScalarUbAccessCycles;
  I.busy[PipeStats::kScalar] += kScalarUbAccessCycles;
  o.slot->ready = std::max(o.slot->ready, I.issue);
  o.slot->busy = std::max(o.slot->busy, I.issue);
  store(o.ptr + static_cast<uint64_t>(i) * dtype_bytes(t->dtype), t->dtype, v);
}

double Emulator::gm_get(const evk_gt* t, uint64_t i) {
  Impl& I = impl();
  need_block(*this, I.in_block, "GlobalTensor::GetValue");
  evk_gt at = *t;
  at.addr += i * dtype_bytes(t->dtype);
  at.len = t->len ? (i < t->len ? t->len - i : UINT64_MAX) : 0;
  uint8_t* p = gm_span(*this, I, &at, 1, "GlobalTensor::GetValue");
  I.issue = std::max(I.issue, gm_ready(I, at.addr, at.addr + dtype_bytes(t->dtype))) +
            kScalarGmAccessCycles;
  I.busy[PipeStats::kScalar] += kScalarGmAccessCycles;
  return load(p, t->dtype);
}

void Emulator::gm_set(const evk_gt* t, uint64_t i, double v) {
  Impl& I = impl();
  need_block(*this, I.in_block, "GlobalTensor::SetValue");
  evk_gt at = *t;
  at.addr += i * dtype_bytes(t->dtype);
  at.len = t->len ? (i < t->len ? t->len - i : UINT64_MAX) : 0;
  uint8_t* p = gm_span(*this, I, &at, 1, "GlobalTensor::SetValue");
  I.issue += kScalarGmAccessCycles;
  I.busy[PipeStats::kScalar] += kScalarGmAccessCycles;
  I.gm_writes.push_back({at.addr, at.addr + dtype_bytes(t->dtype), I.issue});
  store(p, t->dtype, v);
}

void Emulator::barrier(int32_t pipe) {
  Impl& I = impl();
  need_block(*this, I.in_block, "PipeBarrier");
  if (pipe == 6)
    I.issue = block_end_time(I);
  else if (pipe == 1)
    I.issue = std::max(I.issue, I.pipe[kVec]);
  else if (pipe == 2)
    I.issue = std::max(I.issue, I.pipe[kCube]);
  else if (pipe == 4)
    I.issue = std::max(I.issue, I.pipe[kMte2]);
  else if (pipe == 5)
    I.issue = std::max(I.issue, I.pipe[kMte3]);
}

// ---------------- cube (high-level Matmul) ----------------

namespace {
// The numbers of one Matmul call: float accumulation in K order.
void matmul_numbers(const evk_mm& mm, const uint8_t* pa, const uint8_t* pb, const uint8_t* pbias,
                    uint8_t* pc) {
  int64_t m = mm.m, n = mm.n, k = mm.k, lda = mm.lda, ldb = mm.ldb, ldc = mm.ldc;
  size_t ein = dtype_bytes(mm.a.dtype);
  std::vector<float> A(m * k), B(k * n), C(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      A[i * k + kk] = static_cast<float>(
          load(pa + (mm.trans_a ? kk * lda + i : i * lda + kk) * ein, mm.a.dtype));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j)
      B[kk * n + j] = static_cast<float>(
          load(pb + (mm.trans_b ? j * ldb + kk : kk * ldb + j) * ein, mm.b.dtype));
  for (int64_t i = 0; i < m; ++i) {
    float* c = &C[i * n];
    for (int64_t j = 0; j < n; ++j)
      c[j] = pbias ? static_cast<float>(load(pbias + j * 4, EVK_F32)) : 0.0f;
    for (int64_t kk = 0; kk < k; ++kk) {
      float av = A[i * k + kk];
      const float* b = &B[kk * n];
      for (int64_t j = 0; j < n; ++j) c[j] += av * b[j];
    }
  }
  for (int64_t i = 0; i < m; ++i) std::memcpy(pc + i * ldc * 4, &C[i * n], n * 4);
}
}  // namespace

void Emulator::matmul(const evk_mm* mm) {
  Impl& I = impl();
  const char* api = "Matmul::IterateAll";
  need_block(*this, I.in_block, api);
  if (mm->a.dtype != mm->b.dtype || (mm->a.dtype != EVK_F32 && mm->a.dtype != EVK_F16))
    fail("DTYPE_UNSUPPORTED", "Matmul: A and B must both be float or both half");
  if (mm->c.dtype != EVK_F32 || (mm->has_bias && mm->bias.dtype != EVK_F32))
    fail("DTYPE_UNSUPPORTED",
         "Matmul: C and the bias must be float (the cube accumulates in float)");
  if (mm->a.addr == 0 || mm->b.addr == 0)
    fail("QUEUE_MISUSE", "Matmul::IterateAll before SetTensorA and SetTensorB");
  int64_t m = mm->m, n = mm->n, k = mm->k;
  if (m <= 0 || n <= 0 || k <= 0)
    fail("MATMUL_TILING",
         fmt::format("Matmul::IterateAll with M={} N={} K={}: did REGIST_MATMUL_OBJ "
                     "get a tiling from MultiCoreMatmulTiling::GetTiling?",
                     m, n, k));
  int64_t bm = mm->base_m, bn = mm->base_n, bk = mm->base_k;
  size_t ein = dtype_bytes(mm->a.dtype);
  if (bm <= 0 || bn <= 0 || bk <= 0 || bm % 16 || bn % 16 || bk % 16)
    fail("MATMUL_TILING", fmt::format("Matmul base tile {}x{}x{}: baseM, baseN and baseK must be "
                                      "positive multiples of 16 (the cube's fractal)",
                                      bm, bn, bk));
  if (bm * bk * ein > kL0aBytes || bk * bn * ein > kL0bBytes || bm * bn * 4 > kL0cBytes)
    fail("L0_OVERFLOW", fmt::format("Matmul base tile {}x{}x{}: A's tile needs {} bytes of L0A "
                                    "({}), B's {} of L0B ({}), C's {} of L0C ({}); use smaller "
                                    "base tiles (SetFixSplit)",
                                    bm, bn, bk, bm * bk * ein, kL0aBytes, bk * bn * ein, kL0bBytes,
                                    bm * bn * 4, kL0cBytes));
  int64_t lda = mm->lda, ldb = mm->ldb, ldc = mm->ldc;
  int64_t a_last = mm->trans_a ? (k - 1) * lda + m - 1 : (m - 1) * lda + k - 1;
  int64_t b_last = mm->trans_b ? (n - 1) * ldb + k - 1 : (k - 1) * ldb + n - 1;
  int64_t c_last = (m - 1) * ldc + n - 1;
  const uint8_t* pa = gm_span(*this, I, &mm->a, a_last + 1, "Matmul (tensor A)");
  const uint8_t* pb = gm_span(*this, I, &mm->b, b_last + 1, "Matmul (tensor B)");
  uint8_t* pc = gm_span(*this, I, &mm->c, c_last + 1, "Matmul (tensor C)");
  const uint8_t* pbias = mm->has_bias ? gm_span(*this, I, &mm->bias, n, "Matmul (bias)") : nullptr;
  if (numerics_) matmul_numbers(*mm, pa, pb, pbias, pc);
  // The cost: base tiles through MTE2 (ping-pong in L1), the cube, then the fixpipe out.
  double bw = I.bytes_per_cycle();
  I.launch_cube = true;
  // HBM sees each operand once: the tiles a core reloads hit the 910B's L2.
  I.launch_gm_bytes += static_cast<double>((m * k + k * n) * ein + m * n * 4);
  double deps = std::max(gm_ready(I, mm->a.addr, mm->a.addr + (a_last + 1) * ein),
                         gm_ready(I, mm->b.addr, mm->b.addr + (b_last + 1) * ein));
  double start = std::max(I.issue, deps);
  double cube_prev[2] = {start, start}, last = start;
  uint32_t slow = mm->a.dtype == EVK_F32 ? kCubeFloatSlowdown : 1;
  int step = 0;
  for (int64_t i0 = 0; i0 < m; i0 += bm)
    for (int64_t j0 = 0; j0 < n; j0 += bn) {
      int64_t tm = std::min(bm, m - i0), tn = std::min(bn, n - j0);
      double cube_end = start;
      for (int64_t k0 = 0; k0 < k; k0 += bk, ++step) {
        int64_t tk = std::min(bk, k - k0);
        double bytes = static_cast<double>((tm * tk + tk * tn) * ein);
        double load_start = std::max({I.pipe[kMte2], cube_prev[step % 2], start});
        double load_end = load_start + kMteStartupCycles + bytes / bw;
        I.pipe[kMte2] = load_end;
        I.busy[kMte2] += load_end - load_start;
        double cube_start = std::max(I.pipe[kCube], load_end);
        double fr = static_cast<double>(ceil_div(tm, 16)) * ceil_div(tn, 16) * ceil_div(tk, 16);
        cube_end = cube_start + fr * slow;
        I.pipe[kCube] = cube_end;
        I.busy[kCube] += cube_end - cube_start;
        cube_prev[step % 2] = cube_end;
      }
      double out_start = std::max(I.pipe[kMte3], cube_end);
      I.pipe[kMte3] = out_start + kMteStartupCycles + static_cast<double>(tm * tn * 4) / bw;
      I.busy[kMte3] += I.pipe[kMte3] - out_start;
      last = std::max(last, I.pipe[kMte3]);
    }
  I.gm_writes.push_back({mm->c.addr, mm->c.addr + (c_last + 1) * 4, last});
  I.issue = last;  // IterateAll<sync = true> returns when C is written
}

}  // namespace evk::runner::ascendc
