// task: builtin:level1/relu
// expect: runtime_crash
// gates: no-static-source no-instruction-scan
// feedback: clone
// cheat: races the direct-access handler: a second thread (a raw clone, no import) spins on the
// input's reservation, copying out whatever page the fault handler opens for the main thread's
// one-instruction step, so that it reads global memory uncharged while the main thread makes
// a single charged load per page. The Ascend C runner's sandbox allows no threads at all.
#include "kernel_operator.h"
using namespace AscendC;

static volatile const float* g_watch = nullptr;
static float g_stolen[1024];
static char g_stack[64 * 1024] __attribute__((aligned(16)));

static void spin() {
  for (;;)
    if (g_watch)
      for (int i = 0; i < 1024; ++i) g_stolen[i] = g_watch[i];
}

// clone(CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM) onto g_stack; the child runs spin().
static long raw_thread() {
  long r;
  register void (*fn)() asm("rbx") = spin;
  asm volatile(
      "syscall\n\t"
      "test %%rax, %%rax\n\t"
      "jnz 1f\n\t"
      "call *%%rbx\n\t"
      "1:"
      : "=a"(r)
      : "a"(56L), "D"(0x50F00L), "S"(g_stack + sizeof g_stack), "d"(0L), "r"(fn)
      : "rcx", "r11", "memory");
  return r;
}

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, uint32_t n) {
  if (GetBlockIdx() != 0) return;
  const __gm__ float* xs = (const __gm__ float*)x;
  __gm__ float* ys = (__gm__ float*)y;
  g_watch = xs;
  float first = xs[0];  // the one charged load: the page is open while it steps
  for (uint32_t i = 0; i < n && i < 1024; ++i) ys[i] = g_stolen[i] > 0 ? g_stolen[i] : first * 0;
}

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  raw_thread();
  ACLRT_LAUNCH_KERNEL(relu_custom)(1, nullptr, (GM_ADDR)in[0].data, (GM_ADDR)out[0].data,
                                   (uint32_t)evk_numel(&in[0]));
  return 0;
}
