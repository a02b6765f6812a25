// task: builtin:level1/relu
// expect: runtime_crash
// gate: correctness
// feedback: DIRECT_GM_ACCESS
// cheat: the host writes the output with aclrtMemcpy(HOST_TO_DEVICE) instead of launching a
// kernel; the host may fill only device memory it allocated itself (tiling data, tables)
#include "acl/acl.h"
#include "kernel_operator.h"

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor* out, int32_t) {
  static const float zeros[1024] = {};
  size_t n = static_cast<size_t>(evk_numel(&out[0]));
  uint8_t* dst = static_cast<uint8_t*>(out[0].data);
  for (size_t i = 0; i < n; i += 1024) {
    size_t k = n - i < 1024 ? n - i : 1024;
    aclrtMemcpy(dst + i * sizeof(float), k * sizeof(float), zeros, k * sizeof(float),
                ACL_MEMCPY_HOST_TO_DEVICE);
  }
  return 0;
}
