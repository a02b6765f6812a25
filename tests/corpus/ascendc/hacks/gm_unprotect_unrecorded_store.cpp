// task: builtin:level1/relu
// expect: mismatch
// gate: correctness
// gates: no-static-source no-instruction-scan
// feedback: expected
// cheat: computes the ReLU in the Unified Buffer through the API, then makes the output's GM
// reservation writable itself (a raw mprotect: no import, no rule to see it) and stores the
// results there with plain stores, so that no store is recorded or charged. A reservation page
// only ever holds a copy of global memory for the one instruction the fault handler steps: the
// stores land in memory no output is read from, and the output stays poison.
#include "kernel_operator.h"
using namespace AscendC;

static long raw_mprotect(void* p, unsigned long n, long prot) {
  long r;
  asm volatile("syscall" : "=a"(r) : "a"(10L), "D"(p), "S"(n), "d"(prot) : "rcx", "r11", "memory");
  return r;
}

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t total,
                                                  uint32_t perCore) {
  uint32_t start = perCore * GetBlockIdx();
  uint32_t len = start >= total ? 0 : (total - start < perCore ? total - start : perCore);
  GlobalTensor<float> xGm;
  xGm.SetGlobalBuffer((__gm__ float*)x + start, len);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, perCore * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, xGm, (len + 7) / 8 * 8);
  PipeBarrier<PIPE_ALL>();
  Relu(t, t, static_cast<int32_t>((len + 7) / 8 * 8));
  PipeBarrier<PIPE_ALL>();
  __gm__ float* ys = (__gm__ float*)y + start;
  uintptr_t lo = reinterpret_cast<uintptr_t>(ys) & ~uintptr_t(4095);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(ys + len) + 4095) & ~uintptr_t(4095);
  raw_mprotect(reinterpret_cast<void*>(lo), hi - lo, 3);  // PROT_READ | PROT_WRITE
  for (uint32_t i = 0; i < len; ++i) ys[i] = t.GetValue(i);
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  uint32_t total = static_cast<uint32_t>(evk_numel(&in[0]));
  uint32_t blocks = 24;
  uint32_t perCore = ((total + blocks - 1) / blocks + 7) / 8 * 8;
  blocks = (total + perCore - 1) / perCore;
  ACLRT_LAUNCH_KERNEL(relu_custom)(blocks, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data,
                                   total, perCore);
  return 0;
}
