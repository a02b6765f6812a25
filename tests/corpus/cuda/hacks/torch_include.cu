// task: builtin:level1/relu
// expect: hack_static
// gate: static_hack
// feedback: torch/extension.h
// cheat: hands the work to libtorch.
#include "evokernel/kernel_abi.h"
#include <torch/extension.h>

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  auto x = torch::from_blob(in[0].data, {in[0].shape[0], in[0].shape[1]}, torch::kCUDA);
  auto y = torch::from_blob(out[0].data, {in[0].shape[0], in[0].shape[1]}, torch::kCUDA);
  y.copy_(torch::relu(x));
  return 0;
}
