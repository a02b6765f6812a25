// Scalar access: GetValue / SetValue on local and global tensors, issued by the scalar unit
// after the tensor's producer, at the scalar unit's access cost.
#include <fmt/format.h>

#include <algorithm>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
using namespace emu;

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

}  // namespace evk::runner::ascendc
