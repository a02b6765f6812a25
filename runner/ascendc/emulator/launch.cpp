// Calls and launches: an evk_forward call's launches, a launch's blocks run in waves over the
// cores of their kind, and what a launch cost (its slowest core, at least its HBM traffic).
#include <fmt/format.h>

#include <algorithm>

#include "emulator_impl.h"

namespace evk::runner::ascendc {

using namespace emu;

namespace {
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

void Emulator::begin_call() {
  launches_.clear();
  impl().serial = 0;
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

}  // namespace evk::runner::ascendc
