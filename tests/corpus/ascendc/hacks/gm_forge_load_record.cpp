// task: builtin:level1/relu
// expect: hack_dynamic
// gates: no-static-source
// feedback: TRACE_DIVERGED
// cheat: computes the ReLU honestly, but block 0 also reads x[0] through a __gm__ pointer (a
// recorded, charged load), and the host then finds the runner's trace writer by an ELF walk and
// rewrites the bytes that load row says it saw (a forged record of a load: a kernel that read
// global memory off the books would need exactly this to make its trace look consistent). The
// replay compares every recorded load with its own global memory at that point.
#include <stdint.h>

#include "kernel_operator.h"
using namespace AscendC;

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct ReluTiling {
  uint32_t total;    // elements
  uint32_t perCore;  // elements per block, a multiple of 8 (32 bytes of float)
  uint32_t tile;     // elements per tile, a multiple of 8
};

class KernelRelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReluTiling& t) {
    uint32_t start = t.perCore * GetBlockIdx();
    len_ = start >= t.total ? 0 : (t.total - start < t.perCore ? t.total - start : t.perCore);
    tile_ = t.tile;
    xGm_.SetGlobalBuffer((__gm__ float*)x + start, len_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + start, len_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t off = 0; off < len_; off += tile_) {
      uint32_t n = len_ - off < tile_ ? len_ - off : tile_;
      CopyIn(off, n);
      Compute(n);
      CopyOut(off, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
    LocalTensor<float> x = inQ_.AllocTensor<float>();
    if (n % 8 == 0) {
      DataCopy(x, xGm_[off], n);
    } else {
      DataCopyPad(x, xGm_[off], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
                  DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    }
    inQ_.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> x = inQ_.DeQue<float>();
    LocalTensor<float> y = outQ_.AllocTensor<float>();
    Relu(y, x, static_cast<int32_t>((n + 7) / 8 * 8));
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
    LocalTensor<float> y = outQ_.DeQue<float>();
    if (n % 8 == 0) {
      DataCopy(yGm_[off], y, n);
    } else {
      DataCopyPad(yGm_[off], y, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
    }
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQ_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQ_;
  GlobalTensor<float> xGm_, yGm_;
  uint32_t len_ = 0, tile_ = 0;
};

static float g_first = 0;

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, ReluTiling t) {
  if (GetBlockIdx() == 0) g_first = *(volatile __gm__ float*)x;  // one direct load
  KernelRelu op;
  op.Init(x, y, t);
  op.Process();
}

// The runner's trace writer: {region, capacity, position} in its writable segment, the region
// starting with the magic "EVKTRACE". The load row is {u16 row, u64 address, u64 length, the
// bytes}: found by the address of x and a length of one float, its first byte flipped.
static void forge_load(const void* ret, uint64_t x) {
  uintptr_t p = reinterpret_cast<uintptr_t>(ret) & ~uintptr_t(4095);
  while (!(reinterpret_cast<const uint8_t*>(p)[0] == 0x7f && reinterpret_cast<const uint8_t*>(p)[1] == 'E'))
    p -= 4096;
  const uint8_t* h = reinterpret_cast<const uint8_t*>(p);
  uint64_t phoff = *reinterpret_cast<const uint64_t*>(h + 32);
  uint16_t phent = *reinterpret_cast<const uint16_t*>(h + 54), phnum = *reinterpret_cast<const uint16_t*>(h + 56);
  for (uint16_t i = 0; i < phnum; ++i) {
    const uint8_t* ph = h + phoff + i * phent;
    if (*reinterpret_cast<const uint32_t*>(ph) != 1 || !(*reinterpret_cast<const uint32_t*>(ph + 4) & 2)) continue;
    uint64_t lo = p + *reinterpret_cast<const uint64_t*>(ph + 16);
    uint64_t hi = lo + *reinterpret_cast<const uint64_t*>(ph + 40);
    for (uint64_t a = (lo + 7) / 8 * 8; a + 24 <= hi; a += 8) {
      uint64_t* w = reinterpret_cast<uint64_t*>(a);
      if (w[0] == 0 || w[0] % 4096 || (w[0] >> 47) || w[1] != (256ull << 20)) continue;
      if (*reinterpret_cast<const uint64_t*>(w[0]) != 0x45564b5452414345ull) continue;
      uint8_t* blob = reinterpret_cast<uint8_t*>(w[0]);
      for (uint64_t k = 16; k + 20 <= w[2]; ++k) {
        uint64_t addr, len;
        __builtin_memcpy(&addr, blob + k, 8);
        __builtin_memcpy(&len, blob + k + 8, 8);
        if (addr == x && len == 4) {
          blob[k + 16] ^= 0x40;
          return;
        }
      }
      return;
    }
  }
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  ReluTiling t;
  t.total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t blocks = 24;
  t.perCore = ((t.total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (t.total + t.perCore - 1) / t.perCore;
  t.tile = t.perCore < 8192 ? t.perCore : 8192;
  ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, t);
  forge_load(__builtin_return_address(0), reinterpret_cast<uint64_t>(in[0].data));
  return 0;
}
