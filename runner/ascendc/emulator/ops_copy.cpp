// Data movement: DataCopy (contiguous, strided in 32-byte blocks) and DataCopyPad between
// global memory and the Unified Buffer on MTE2/MTE3, and local-to-local copies on the vector
// unit.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
using namespace emu;

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
  Operand l =
      operand(*this, I, lt, count, api, dir == EVK_COPY_LOCAL_TO_LOCAL ? "destination" : "local");
  if (dir == EVK_COPY_LOCAL_TO_LOCAL) {
    Operand s = operand(*this, I, lt2, count, api, "source");
    if (numerics_) std::memmove(l.ptr, s.ptr, bytes);
    schedule(I, kVec, vec_cycles(bytes, kVecCyclesSimple), {s.slot}, {l.slot});
    return;
  }
  uint8_t* g = gm_span(*this, I, gt, count, api);
  I.launch_gm_bytes += static_cast<double>(bytes);
  double dur = kMteStartupCycles + static_cast<double>(bytes) / I.bytes_per_cycle();
  if (dir == EVK_COPY_GM_TO_LOCAL) {
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
  uint64_t gm_step =
      burst +
      static_cast<uint64_t>(dir == EVK_COPY_GM_TO_LOCAL ? src_stride : dst_stride) * per_block;
  uint64_t ub_step =
      burst +
      static_cast<uint64_t>(dir == EVK_COPY_GM_TO_LOCAL ? dst_stride : src_stride) * per_block;
  uint64_t ub_elems = (count - 1) * ub_step + burst, gm_elems = (count - 1) * gm_step + burst;
  Operand l = operand(*this, I, lt, static_cast<uint32_t>(std::min<uint64_t>(ub_elems, UINT32_MAX)),
                      api, "local");
  uint8_t* g = gm_span(*this, I, gt, gm_elems, api);
  for (uint32_t b = 0; numerics_ && b < count; ++b) {
    uint8_t* lp = l.ptr + b * ub_step * es;
    uint8_t* gp = g + b * gm_step * es;
    if (dir == EVK_COPY_GM_TO_LOCAL)
      std::memcpy(lp, gp, burst * es);
    else
      std::memcpy(gp, lp, burst * es);
  }
  I.launch_gm_bytes += static_cast<double>(count * burst * es);
  double dur = kMteStartupCycles + (count - 1.0) * kMteBurstCycles +
               static_cast<double>(count * burst * es) / I.bytes_per_cycle();
  if (dir == EVK_COPY_GM_TO_LOCAL) {
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
      local_block +
      static_cast<uint64_t>(dir == EVK_COPY_GM_TO_LOCAL ? dst_stride : src_stride) * kUbAlign;
  uint64_t gm_step =
      bytes + static_cast<uint64_t>(dir == EVK_COPY_GM_TO_LOCAL ? src_stride : dst_stride);
  uint64_t ub_bytes = (count - 1) * ub_step + local_block;
  uint64_t gm_bytes = (count - 1) * gm_step + bytes;
  Operand l = operand(*this, I, lt, static_cast<uint32_t>(ub_bytes / es), api, "local");
  uint8_t* g = gm_span(*this, I, gt, gm_bytes / es, api);
  for (uint32_t b = 0; numerics_ && b < count; ++b) {
    uint8_t* lp = l.ptr + b * ub_step;
    uint8_t* gp = g + b * gm_step;
    if (dir == EVK_COPY_GM_TO_LOCAL) {
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
  if (dir == EVK_COPY_GM_TO_LOCAL) {
    schedule(I, kMte2, dur, {}, {l.slot}, gm_ready(I, gt->addr, gt->addr + gm_bytes));
  } else {
    double end = schedule(I, kMte3, dur, {l.slot}, {});
    I.gm_writes.push_back({gt->addr, gt->addr + gm_bytes, end});
  }
}

}  // namespace evk::runner::ascendc
