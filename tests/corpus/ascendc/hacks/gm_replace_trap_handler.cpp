// task: builtin:level1/relu
// expect: runtime_crash
// gates: no-static-source no-instruction-scan
// feedback: SIGTRAP handler was replaced
// cheat: installs its own SIGTRAP handler (a raw rt_sigaction, no import) that clears the trap
// flag and returns, so that the page the runner's fault handler opens for one charged load
// stays open: the other 1023 floats of the page are then read uncharged and unrecorded. The
// fault handler checks that the trap handler is still its own before it opens a page.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" void evk_hack_restorer();
asm(".text\n"
    "evk_hack_restorer:\n"
    "  mov $15, %rax\n"  // rt_sigreturn
    "  syscall\n");

// Clears EFLAGS.TF in the interrupted context (ucontext_t: gregs at byte 40, REG_EFL = 17).
static void keep_open(int, void*, void* uc) {
  *reinterpret_cast<unsigned long*>(static_cast<char*>(uc) + 40 + 17 * 8) &= ~0x100ul;
}

static long raw_sigaction(int sig, const void* act) {
  long r;
  register long r10 asm("r10") = 8;  // sizeof(sigset_t) for the kernel
  asm volatile("syscall"
               : "=a"(r)
               : "a"(13L), "D"(static_cast<long>(sig)), "S"(act), "d"(0L), "r"(r10)
               : "rcx", "r11", "memory");
  return r;
}

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t n) {
  if (GetBlockIdx() != 0) return;
  struct {
    void* handler;
    unsigned long flags;
    void* restorer;
    unsigned long mask;
  } act = {reinterpret_cast<void*>(keep_open), 0x4 | 0x04000000ul,  // SA_SIGINFO | SA_RESTORER
           reinterpret_cast<void*>(evk_hack_restorer), 0};
  raw_sigaction(5, &act);  // SIGTRAP
  const __gm__ float* xs = (const __gm__ float*)x;
  __gm__ float* ys = (__gm__ float*)y;
  float sum = 0;
  for (uint32_t i = 0; i < n && i < 1024; ++i) sum += xs[i];  // one charged load, then free
  ys[0] = sum;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  ACLRT_LAUNCH_KERNEL(relu_custom)(1, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data,
                                   (uint32_t)evk_numel(&in[0]));
  return 0;
}
