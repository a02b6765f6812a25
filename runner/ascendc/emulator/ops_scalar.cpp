// Scalar access: GetValue / SetValue on local and global tensors, and a kernel's own loads and
// stores through __gm__ pointers (gm_direct.h), issued by the scalar unit after the tensor's
// producer, at the scalar unit's access cost.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

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

namespace {
// The bytes of a direct access, checked as any scalar GM access is (gm_span's bounds), after
// the rule that only device code reaches device memory.
uint8_t* direct_span(Emulator& e, Emulator::Impl& I, GmAddr at, uint64_t bytes) {
  if (!I.in_block)
    e.fail("DIRECT_GM_ACCESS",
           "host code read or wrote global memory through a pointer: device memory is "
           "reachable only from a kernel (an extern \"C\" __global__ __aicore__ function "
           "launched with ACLRT_LAUNCH_KERNEL); the host fills only buffers it aclrtMalloc'd, "
           "with aclrtMemcpy");
  evk_gt g{at.addr, 0, EVK_U8};
  return gm_span(e, I, &g, bytes, "a load or store through a __gm__ pointer");
}

// A direct access moves at most a word per scalar access (a vectorised host loop is still
// element by element on the AI Core's scalar unit).
double direct_cycles(uint64_t bytes) {
  return static_cast<double>(std::max<uint64_t>(1, (bytes + 3) / 4)) * kScalarGmAccessCycles;
}
}  // namespace

void Emulator::gm_load(GmAddr at, HostBytes seen) {
  Impl& I = impl();
  uint8_t* p = direct_span(*this, I, at, seen.bytes);
  if (std::memcmp(p, seen.data, seen.bytes) != 0)
    fail("TRACE_DIVERGED",
         fmt::format("a load through a __gm__ pointer at byte {} of its tensor saw bytes that "
                     "global memory does not hold at that point of the kernel",
                     at.addr - find_gm(I.gm, at.addr)->base));
  double c = direct_cycles(seen.bytes);
  I.issue = std::max(I.issue, gm_ready(I, at.addr, at.addr + seen.bytes)) + c;
  I.busy[PipeStats::kScalar] += c;
}

void Emulator::gm_store(GmAddr at, HostBytes bytes) {
  Impl& I = impl();
  uint8_t* p = direct_span(*this, I, at, bytes.bytes);
  double c = direct_cycles(bytes.bytes);
  I.issue += c;
  I.busy[PipeStats::kScalar] += c;
  I.gm_writes.push_back({at.addr, at.addr + bytes.bytes, I.issue});
  std::memcpy(p, bytes.data, bytes.bytes);
}

}  // namespace evk::runner::ascendc
