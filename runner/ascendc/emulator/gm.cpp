// Global memory: each tensor a PROT_NONE reservation (a stray pointer faults) whose bytes
// live in a vector, the allocator's round-up, the host's aclrt calls, and the span check every
// GM access goes through.
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
namespace {
// The reservations' ranges, readable from a signal handler without locks.
constexpr int kMaxRanges = 4096;
struct Range {
  uintptr_t lo, hi;
};
Range g_ranges[kMaxRanges];
std::atomic<int> g_range_count{0};
}  // namespace

namespace emu {
GmBuf* find_gm(std::vector<std::unique_ptr<GmBuf>>& gm, uint64_t addr) {
  auto it =
      std::upper_bound(gm.begin(), gm.end(), addr,
                       [](uint64_t v, const std::unique_ptr<GmBuf>& x) { return v < x->base; });
  if (it == gm.begin()) return nullptr;
  GmBuf* b = std::prev(it)->get();
  return addr < b->base + b->reserved ? b : nullptr;
}
void need_host(Emulator& e, const Emulator::Impl& I, const char* api) {
  if (I.launching)
    e.fail("NOT_ON_HOST", fmt::format("{} inside a kernel: device memory is allocated and "
                                      "filled by the host, before ACLRT_LAUNCH_KERNEL",
                                      api));
}
// The bytes [addr, addr + bytes) of global memory, checked against the allocation the address
// lies in (its round-up included). The GlobalTensor's size is not a bound: the runtime does not
// check it either, and a kernel may read past it within the allocation.
uint8_t* gm_span(Emulator& e, Emulator::Impl& I, const evk_gt* g, uint64_t elems, const char* api) {
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
}  // namespace emu

using namespace emu;

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

Emulator::GmView Emulator::gm_view(uint64_t addr) {
  GmBuf* b = find_gm(impl().gm, addr);
  if (!b) return {};
  return {b->base, b->data.data(), b->padded};
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

uint64_t Emulator::workspace() {
  Impl& I = impl();
  if (!I.workspace) I.workspace = gm_alloc(32, "the system workspace");
  return I.workspace;
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

}  // namespace evk::runner::ascendc
