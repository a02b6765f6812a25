// The emulator's state and the helpers its files share (emulator/*.cpp); not part of the
// emulator's interface (emulator.h). Invariants:
//  - a LocalTensor's slot id and a queue id carry the block's serial in their top 12 bits, so a
//    handle from another block or launch is recognised as stale;
//  - a Slot's `ready` is the end of its last write and `busy` the end of its last access: a
//    read waits for `ready`, a write for `busy` (the scheduler, schedule.cpp, keeps both);
//  - GM buffers are sorted by base; a reservation is never unmapped while the process runs.
#pragma once
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "backends/ascendc/npu_constants.h"
#include "dtype.h"
#include "emulator.h"
#include "evokernel/kernel_abi.h"

namespace evk::runner::ascendc {
namespace emu {

using namespace evk::npu;

// The pipes the scheduler keeps a clock for (PipeStats indexes its busy cycles the same way).
enum Pipe { kMte2, kVec, kCube, kMte3, kPipes };
static_assert(int{kMte2} == int{PipeStats::kMte2} && int{kVec} == int{PipeStats::kVector} &&
                  int{kCube} == int{PipeStats::kCube} && int{kMte3} == int{PipeStats::kMte3},
              "PipeStats indexes its busy cycles by Pipe");

}  // namespace emu

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
  std::vector<uint8_t> ub = std::vector<uint8_t>(npu::kUbBytes);
  uint32_t ub_used = 0;
  std::vector<Slot> slots;
  std::vector<Queue> queues;
  double pipe[emu::kPipes] = {};
  double issue = 0;
  std::vector<GmWrite> gm_writes;
  // Where the cycles went (PipeStats): this block's busy cycles per pipe, and each finished
  // block's (folded per core at launch end, as block_cycles are).
  double busy[PipeStats::kCount] = {};
  std::vector<PipeStats> block_stats;

  // One core's copy rate; the chip-wide HBM limit is applied to the launch as a whole
  // (launch_end), so it is shared by the cores that are busy, not divided by blockDim.
  double bytes_per_cycle() const { return npu::kMteBytesPerCycle; }
};

namespace emu {

// gm.cpp: global memory.
GmBuf* find_gm(std::vector<std::unique_ptr<GmBuf>>& gm, uint64_t addr);
void need_host(Emulator& e, const Emulator::Impl& I, const char* api);
// The bytes [addr, addr + elems * sizeof) of global memory, checked against the allocation
// the address lies in (its round-up included).
uint8_t* gm_span(Emulator& e, Emulator::Impl& I, const evk_gt* g, uint64_t elems, const char* api);

// local.cpp: queue and tensor handles.
uint32_t make_id(uint32_t serial, size_t index);
evk_lt tensor_of(uint32_t slot_index, uint32_t serial, const Slot& s, int32_t dtype);
uint32_t slot_index(const evk_lt* t);

// checks.cpp: the checks every call shares; each ends the run with its category on failure.
void need_block(Emulator& e, bool in_block, const char* api);
Queue& queue_of(Emulator& e, Emulator::Impl& I, uint32_t id, const char* api);
Slot& slot_of(Emulator& e, Emulator::Impl& I, const evk_lt* t, const char* api);
struct Operand {
  Slot* slot;
  uint8_t* ptr;
};
// `n` elements of `t` as an operand of `api` (its `role` named in messages): within the
// tensor, of a held type, and 32-byte aligned unless `aligned` is false.
Operand operand(Emulator& e, Emulator::Impl& I, const evk_lt* t, uint32_t n, const char* api,
                const char* role, bool aligned = true);
void need_dtype(Emulator& e, const char* api, int32_t d, std::initializer_list<int32_t> ok);
// The same with the types as bits (1 << EVK_F32 ...), listed in messages as half, float,
// int32_t, uint8_t.
void need_dtype(Emulator& e, const char* api, int32_t d, uint32_t dtypes);

// schedule.cpp: the pipes and their cost.
double block_end_time(const Emulator::Impl& I);
// When an operation on pipe `p` lasting `dur` cycles that reads `reads` and writes `writes`
// can start (not before `after`); charges it and returns its end.
double schedule(Emulator::Impl& I, int p, double dur, std::initializer_list<Slot*> reads,
                std::initializer_list<Slot*> writes, double after = 0);
double vec_cycles(uint64_t bytes, uint32_t per_repeat);
// When the block's last write to GM bytes [lo, hi) ends (0 when none).
double gm_ready(const Emulator::Impl& I, uint64_t lo, uint64_t hi);

}  // namespace emu
}  // namespace evk::runner::ascendc
