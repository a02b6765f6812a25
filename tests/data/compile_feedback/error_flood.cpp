// More error text than the cap holds (long lines, each error showing its source line and
// caret): the first errors lead, the rest are counted in the cut line.
// expect-errors: many
// expect-first-error: no_such_member
// expect-cut: error
#include "evokernel/kernel_abi.h"
template <int N> struct Deep { static int f(int x) { return x.no_such_member + Deep<N - 1>::f(x); } };
template <> struct Deep<0> { static int f(int) { return 0; } };
extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor* out, int32_t) {
  int* y = static_cast<int*>(out[0].data);
  y[0] = Deep<40>::f(1);
  y[1] = missing_function_number_1_with_a_long_name(y[0], y[0]); y[2] = missing_function_number_2_with_a_long_name(y[0], y[1]); y[3] = missing_function_number_3_with_a_long_name(y[0], y[2]); y[4] = missing_function_number_4_with_a_long_name(y[0], y[3]); y[5] = missing_function_number_5_with_a_long_name(y[0], y[4]); y[6] = missing_function_number_6_with_a_long_name(y[0], y[5]); y[7] = missing_function_number_7_with_a_long_name(y[0], y[6]); y[8] = missing_function_number_8_with_a_long_name(y[0], y[7]); y[9] = missing_function_number_9_with_a_long_name(y[0], y[8]);
  return 0;
}
