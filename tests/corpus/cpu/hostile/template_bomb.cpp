// task: builtin:level1/relu
// expect: compile
// compile-timeout-s: 10
// hostile: exponential template instantiation: the compiler must be stopped by its time or
// memory limit.
#include "evokernel/kernel_abi.h"

template <int N, unsigned long long M>
struct Bomb {
  static constexpr unsigned long long value = Bomb<N - 1, 2 * M>::value + Bomb<N - 1, 2 * M + 1>::value;
};
template <unsigned long long M>
struct Bomb<0, M> {
  static constexpr unsigned long long value = M;
};

extern "C" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {
  return static_cast<int>(Bomb<40, 1>::value & 0);
}
