// task: builtin:level1/relu
// expect: feasible
// honest: includes <iostream> (whose static initialiser is the toolchain's, not the
// candidate's) and builds a std::string message it prints once with std::cout.
#include <iostream>
#include <string>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  static int calls = 0;
  const int64_t n = evk_numel(&in[0]);
  if (calls++ == 0) std::cout << std::string("relu: ") << n << " elements" << std::endl;
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}
