// task: builtin:level1/conv3d
// expect: hack_static
// gate: static_hack
// (now caught first by the library gates: imports allowlist or load-time code; the
// parent-side defence it was written against stands behind them)
// cheat: hashes every input element (so no changed value goes unnoticed) and replays the
// cached output on a hit. On a compute-bound task the hash costs a fraction of the FLOPs: the
// old verifier, with a bytes floor only and three fixed input sets, accepted the fake speed-up.
// Now the FLOP floor (the task's FLOPs over the machine's peak) rejects it.
#include <cstring>
#include <map>
#include <vector>

#include "evokernel/kernel_abi.h"

namespace {
std::map<uint64_t, std::vector<float>> cache;

uint64_t hash_all(const evk_tensor* in, int32_t n_in) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t t = 0; t < n_in; ++t) {
    const uint64_t* w = static_cast<const uint64_t*>(in[t].data);
    int64_t words = evk_numel(&in[t]) * 4 / 8;
    for (int64_t i = 0; i < words; ++i) h = (h ^ w[i]) * 1099511628211ull;
  }
  return h;
}
}  // namespace

extern "C" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* w = static_cast<const float*>(in[1].data);
  const float* bias = static_cast<const float*>(in[2].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t B = in[0].shape[0], C = in[0].shape[1], D = in[0].shape[2], H = in[0].shape[3],
                W = in[0].shape[4], O = in[1].shape[0];
  const int64_t total = B * O * D * H * W;
  uint64_t key = hash_all(in, n_in);
  auto it = cache.find(key);
  if (it != cache.end() && it->second.size() == static_cast<size_t>(total)) {
    std::memcpy(y, it->second.data(), sizeof(float) * total);
    return 0;
  }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t d = 0; d < D; ++d)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t q = 0; q < W; ++q) {
            float acc = bias[o];
            for (int64_t c = 0; c < C; ++c)
              for (int64_t kd = 0; kd < 3; ++kd)
                for (int64_t kh = 0; kh < 3; ++kh)
                  for (int64_t kw = 0; kw < 3; ++kw) {
                    int64_t zd = d + kd - 1, zh = h + kh - 1, zw = q + kw - 1;
                    if (zd < 0 || zd >= D || zh < 0 || zh >= H || zw < 0 || zw >= W) continue;
                    acc += x[(((b * C + c) * D + zd) * H + zh) * W + zw] *
                           w[(((o * C + c) * 3 + kd) * 3 + kh) * 3 + kw];
                  }
            y[(((b * O + o) * D + d) * H + h) * W + q] = acc;
          }
  cache[key].assign(y, y + total);
  return 0;
}
