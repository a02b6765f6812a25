// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// feedback: constructor
// cheat: a load-time function declared with `<:<:gnu::__constructor__:>:>`, the digraph
// spelling of [[gnu::constructor]] with the reserved __name__ form. The old gate caught the
// `constructor` substring only as a whole identifier, so `__constructor__` passed it (reasoned
// from token_matches). Both the attribute rule and the load-time check refuse it now.
#include "evokernel/kernel_abi.h"

namespace {
int ready = 0;
<:<:gnu::__constructor__:>:> void early() { ready = 1; }
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0, n = evk_numel(&in[0]); i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return ready - 1;
}
