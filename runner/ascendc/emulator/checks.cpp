// The checks every API call shares: that it runs inside a kernel, that its LocalTensors are
// live handles of this block, that operands fit their buffers, are aligned and have a type
// the API supports. Each failure names its category and the fix.
#include <fmt/format.h>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
namespace emu {

void need_block(Emulator& e, bool in_block, const char* api) {
  if (!in_block)
    e.fail("NOT_IN_KERNEL",
           fmt::format("{} was called outside a kernel: Ascend C APIs run on the AI Core, inside "
                       "an extern \"C\" __global__ __aicore__ function launched with "
                       "ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...); host code only "
                       "computes the tiling and launches",
                       api));
}
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

Operand operand(Emulator& e, Emulator::Impl& I, const evk_lt* t, uint32_t n, const char* api,
                const char* role, bool aligned) {
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

void need_dtype(Emulator& e, const char* api, int32_t d, uint32_t dtypes) {
  if (d >= 0 && d < 32 && (dtypes >> d) & 1u) return;
  std::string list;
  for (int32_t x : {EVK_F16, EVK_F32, EVK_I32, EVK_U8})
    if ((dtypes >> x) & 1u) list += (list.empty() ? "" : ", ") + std::string(dtype_text(x));
  e.fail("DTYPE_UNSUPPORTED",
         fmt::format("{} does not support {} tensors (supported: {})", api, dtype_text(d), list));
}

}  // namespace emu
}  // namespace evk::runner::ascendc
