// task: builtin:level1/relu
// expect: hack_static
// feedback: aclnnRelu
// cheat: calls the vendor operator library
#include "kernel_operator.h"
extern "C" int aclnnRelu(void*, void*);

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  return aclnnRelu(in[0].data, out[0].data);
}
