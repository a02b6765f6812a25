// task: builtin:level1/relu
// expect: feasible
// A block's last 16 elements finished on the scalar unit by a loop over __gm__ pointers whose
// trip count is known, which the host compiler turns into vector loads and stores (several
// elements an instruction): on the AI Core still one scalar GM access per element, and here
// charged so. The bulk goes through DataCopy and Relu.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t kTail = 16;

template <typename T>
__aicore__ inline void ReluTail(__gm__ T* __restrict__ dst, const __gm__ T* __restrict__ src) {
  for (uint32_t i = 0; i < kTail; ++i) dst[i] = src[i] < T(0) ? T(0) : src[i];  // NaN stays NaN
}

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t total,
                                                  uint32_t perCore) {
  uint32_t start = perCore * GetBlockIdx();
  uint32_t len = start >= total ? 0 : (total - start < perCore ? total - start : perCore);
  uint32_t bulk = len >= kTail && (len - kTail) % 8 == 0 ? len - kTail : len;
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x + start, len);
  yGm.SetGlobalBuffer((__gm__ float*)y + start, len);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  uint32_t tile = 2048;
  pipe.InitBuffer(buf, tile * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  for (uint32_t off = 0; off < bulk; off += tile) {
    uint32_t n = bulk - off < tile ? bulk - off : tile;
    uint32_t n8 = (n + 7) / 8 * 8;
    DataCopy(t, xGm[off], n8);
    PipeBarrier<PIPE_ALL>();
    Relu(t, t, static_cast<int32_t>(n8));
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(yGm[off], t, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
    PipeBarrier<PIPE_ALL>();
  }
  if (bulk < len) ReluTail((__gm__ float*)y + start + bulk, (const __gm__ float*)x + start + bulk);
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  uint32_t total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t blocks = 48;
  uint32_t perCore = ((total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (total + perCore - 1) / perCore;
  ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data,
                                   total, perCore);
  return 0;
}
