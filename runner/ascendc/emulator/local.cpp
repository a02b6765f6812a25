// Local memory: the Unified Buffer's queues (TQue) and buffers (TBuf), their slots and the
// AllocTensor / EnQue / DeQue / FreeTensor protocol, with the misuses the AI Core would hang
// or corrupt on.
#include <fmt/format.h>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
namespace emu {

uint32_t make_id(uint32_t serial, size_t index) {
  return ((serial & 0xFFFu) << 20) | static_cast<uint32_t>(index + 1);
}
evk_lt tensor_of(uint32_t slot_index, uint32_t serial, const Slot& s, int32_t dtype) {
  size_t es = dtype_bytes(dtype);
  return {make_id(serial, slot_index), 0, static_cast<uint32_t>(es ? s.bytes / es : 0), dtype};
}
uint32_t slot_index(const evk_lt* t) {
  return (t->slot & 0xFFFFFu) - 1;
}
}  // namespace emu

using namespace emu;

uint32_t Emulator::init_queue(int32_t pos, int32_t depth, uint32_t num, uint32_t len) {
  Impl& I = impl();
  need_block(*this, I.in_block, "TPipe::InitBuffer");
  if (pos != EVK_POS_VECIN && pos != EVK_POS_VECOUT && pos != EVK_POS_VECCALC)
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
  if (pos != EVK_POS_VECIN && pos != EVK_POS_VECOUT && pos != EVK_POS_VECCALC)
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

}  // namespace evk::runner::ascendc
