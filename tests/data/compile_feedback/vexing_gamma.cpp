// A capable model's failure seen in issue 20: fifteen -Wvexing-parse warnings (each with a
// fix-it note), then the one error (a use of `gamma`, which libm declares as a function).
// The error leads; the warnings fill the room left; the notes do not fit.
// expect-errors: 1
// expect-first-error: invalid operands
// expect-cut: note
#include "evokernel/kernel_abi.h"
#include <cmath>
struct Acc {
  Acc() {}
  float v = 0;
};
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  Acc a0();
  Acc a1();
  Acc a2();
  Acc a3();
  Acc a4();
  Acc a5();
  Acc a6();
  Acc a7();
  Acc a8();
  Acc a9();
  Acc a10();
  Acc a11();
  Acc a12();
  Acc a13();
  Acc a14();
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] * gamma;
  return 0;
}
