// The pipes and their cost: the scheduler that places each operation on its pipe after its
// operands' producers, the vector unit's cycle formula, and the barriers between pipes.
#include <algorithm>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
namespace emu {

double block_end_time(const Emulator::Impl& I) {
  double t = I.issue;
  for (double p : I.pipe) t = std::max(t, p);
  for (const auto& s : I.slots) t = std::max(t, s.busy);
  return t;
}

// The scheduler: when an operation on `p` lasting `dur` cycles that reads `reads` and writes
// `writes` can start, and its effect on the pipes and the slots.
double schedule(Emulator::Impl& I, int p, double dur, std::initializer_list<Slot*> reads,
                std::initializer_list<Slot*> writes, double after) {
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
}  // namespace emu

using namespace emu;

void Emulator::barrier(int32_t pipe) {
  Impl& I = impl();
  need_block(*this, I.in_block, "PipeBarrier");
  if (pipe == EVK_PIPE_ALL)
    I.issue = block_end_time(I);
  else if (pipe == EVK_PIPE_V)
    I.issue = std::max(I.issue, I.pipe[kVec]);
  else if (pipe == EVK_PIPE_M)
    I.issue = std::max(I.issue, I.pipe[kCube]);
  else if (pipe == EVK_PIPE_MTE2)
    I.issue = std::max(I.issue, I.pipe[kMte2]);
  else if (pipe == EVK_PIPE_MTE3)
    I.issue = std::max(I.issue, I.pipe[kMte3]);
}

}  // namespace evk::runner::ascendc
