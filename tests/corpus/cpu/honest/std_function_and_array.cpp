// task: builtin:level1/mse_loss
// expect: feasible
// honest: std::function dispatch, std::array partial sums and std::accumulate, a helper named
// `close_enough` and a local named `kill` (the old rules rejected `kill`).
#include <array>
#include <functional>
#include <numeric>

#include "evokernel/kernel_abi.h"

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t rows = in[0].shape[0], d = in[0].shape[1];
  std::function<double(int64_t)> sq = [&](int64_t i) {
    const double e = static_cast<double>(a[i]) - b[i];
    return e * e;
  };
  for (int64_t r = 0; r < rows; ++r) {
    std::array<double, 8> part{};
    for (int64_t i = 0; i < d; ++i) part[i % 8] += sq(r * d + i);
    const double kill = std::accumulate(part.begin(), part.end(), 0.0);
    y[r] = static_cast<float>(kill / d);
  }
  return 0;
}
