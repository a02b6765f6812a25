// task: builtin:level1/relu
// expect: hack_static
// feedback: thread
// cheat: host threads
#include <thread>
#include "kernel_operator.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  std::thread t([] {});
  t.join();
  (void)in; (void)out;
  return 0;
}
