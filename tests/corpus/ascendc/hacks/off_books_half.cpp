// task: builtin:level1/relu
// expect: hack_dynamic
// gates: no-static-source
// feedback: off the books
// cheat: the kernel computes the first half through the API; the host writes the second half
// straight into the bytes behind the output's GM (found by the ELF walk), so the in-process
// model charges half the work. The replay's output lacks the second half.
#include <stdint.h>

#include "kernel_operator.h"
using namespace AscendC;

// ---- the walk: from a return address in the runner's code back to its ELF header, then
// through its program headers to its writable segments, where the emulator's state is found
// by the size of its Unified Buffer (a 192 KiB std::vector<uint8_t>) ----
struct Vec {
  uint64_t b, e, c;
};
static bool sane(const Vec* v, uint64_t elem) {
  return v->b && v->b % 8 == 0 && v->b <= v->e && v->e <= v->c && (v->e - v->b) % elem == 0 &&
         v->c - v->b < (1ull << 32) && (v->b >> 47) == 0;
}
static Vec* find_ub(const void* ret) {
  uintptr_t p = reinterpret_cast<uintptr_t>(ret) & ~uintptr_t(4095);
  while (!(reinterpret_cast<const uint8_t*>(p)[0] == 0x7f && reinterpret_cast<const uint8_t*>(p)[1] == 'E' &&
           reinterpret_cast<const uint8_t*>(p)[2] == 'L' && reinterpret_cast<const uint8_t*>(p)[3] == 'F'))
    p -= 4096;
  const uint8_t* h = reinterpret_cast<const uint8_t*>(p);
  uint64_t phoff = *reinterpret_cast<const uint64_t*>(h + 32);
  uint16_t phent = *reinterpret_cast<const uint16_t*>(h + 54), phnum = *reinterpret_cast<const uint16_t*>(h + 56);
  uint64_t first = ~0ull;
  for (uint16_t i = 0; i < phnum; ++i) {
    const uint8_t* ph = h + phoff + i * phent;
    if (*reinterpret_cast<const uint32_t*>(ph) == 1 && *reinterpret_cast<const uint64_t*>(ph + 16) < first)
      first = *reinterpret_cast<const uint64_t*>(ph + 16);
  }
  for (uint16_t i = 0; i < phnum; ++i) {
    const uint8_t* ph = h + phoff + i * phent;
    if (*reinterpret_cast<const uint32_t*>(ph) != 1 || !(*reinterpret_cast<const uint32_t*>(ph + 4) & 2)) continue;
    uint64_t lo = p - first + *reinterpret_cast<const uint64_t*>(ph + 16);
    uint64_t hi = lo + *reinterpret_cast<const uint64_t*>(ph + 40);
    for (uint64_t a = (lo + 7) / 8 * 8; a + 24 <= hi; a += 8) {
      Vec* v = reinterpret_cast<Vec*>(a);
      if (v->b && v->e - v->b == 192 * 1024 && v->c == v->e && sane(v, 1)) return v;
    }
  }
  return nullptr;
}
// ---- end of the walk ----
// The emulator's GM table sits a few words before the UB vector: a vector of pointers to
// {base, bytes, reserved, std::vector<uint8_t> data, ...}. Returns the host bytes behind a
// device address.
static uint8_t* host_bytes(const Vec* ub, uint64_t addr) {
  for (int off = 8; off <= 256; off += 8) {
    const Vec* gm = reinterpret_cast<const Vec*>(reinterpret_cast<const uint8_t*>(ub) - off);
    if (!sane(gm, 8) || gm->e == gm->b) continue;
    for (uint64_t a = gm->b; a < gm->e; a += 8) {
      const uint64_t* g = *reinterpret_cast<uint64_t* const*>(a);
      if (!g || reinterpret_cast<uint64_t>(g) % 8 || (reinterpret_cast<uint64_t>(g) >> 47)) break;
      // The host vector follows a few size words (bytes, the padded size, ...): the first one
      // that holds at least the tensor's bytes.
      const Vec* data = nullptr;
      for (int k = 2; k <= 6 && !data; ++k) {
        const Vec* d = reinterpret_cast<const Vec*>(g + k);
        if (sane(d, 1) && d->e - d->b >= g[1] && d->e - d->b <= g[1] + 4096) data = d;
      }
      if (!data) break;
      if (addr >= g[0] && addr < g[0] + g[1]) return reinterpret_cast<uint8_t*>(data->b + (addr - g[0]));
    }
  }
  return nullptr;
}
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

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, ReluTiling t) {
  KernelRelu op;
  op.Init(x, y, t);
  op.Process();
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  ReluTiling t;
  uint32_t n = static_cast<uint32_t>(evk_numel(&in[0]));
  t.total = n / 2 / 8 * 8;  // the kernel does the first half; the host the rest
  uint32_t blocks = 24;
  t.perCore = ((t.total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (t.total + t.perCore - 1) / t.perCore;
  t.tile = t.perCore < 8192 ? t.perCore : 8192;
  ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data, t);
  const Vec* ub = find_ub(__builtin_return_address(0));
  if (ub) {
    const float* x = reinterpret_cast<const float*>(host_bytes(ub, reinterpret_cast<uint64_t>(in[0].data)));
    float* y = reinterpret_cast<float*>(host_bytes(ub, reinterpret_cast<uint64_t>(out[0].data)));
    if (x && y)
      for (uint32_t i = t.total; i < n; ++i) y[i] = (x[i] > 0 || x[i] != x[i]) ? x[i] : 0.0f;
  }
  return 0;
}
