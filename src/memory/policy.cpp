#include "memory/policy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace evk {

Policy policy_from(const std::string& name) {
  if (name == "value") return Policy::Value;
  if (name == "blend") return Policy::Blend;
  if (name == "similarity") return Policy::Similarity;
  if (name == "none") return Policy::None;
  throw UsageError("unknown memory policy '" + name + "' (use value, blend, similarity or none)");
}

std::string policy_name(Policy p) {
  switch (p) {
    case Policy::Value: return "value";
    case Policy::Blend: return "blend";
    case Policy::Similarity: return "similarity";
    case Policy::None: return "none";
  }
  return "value";
}

std::vector<double> zscores(const std::vector<double>& x) {
  std::vector<double> z(x.size(), 0.0);
  if (x.empty()) return z;
  double mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  double sd = std::sqrt(var / static_cast<double>(x.size()));
  if (sd < 1e-12) return z;
  for (size_t i = 0; i < x.size(); ++i) z[i] = (x[i] - mean) / sd;
  return z;
}

namespace {

// Indices of the n best by score, ties by similarity, then by pool position.
std::vector<size_t> top_by(const std::vector<PoolEntry>& pool, const std::vector<double>& score,
                           size_t n) {
  std::vector<size_t> idx(pool.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (score[a] != score[b]) return score[a] > score[b];
    return pool[a].similarity > pool[b].similarity;
  });
  idx.resize(std::min(n, idx.size()));
  return idx;
}

}  // namespace

std::vector<size_t> choose(const std::vector<PoolEntry>& pool, Policy policy, size_t n,
                           double epsilon, double blend_w, std::mt19937_64& rng) {
  n = std::min(n, pool.size());
  std::vector<double> score(pool.size());
  switch (policy) {
    case Policy::None:
      return {};
    case Policy::Similarity: {
      std::vector<size_t> idx(n);
      std::iota(idx.begin(), idx.end(), size_t{0});
      return idx;
    }
    case Policy::Value: {
      std::uniform_real_distribution<double> u(0.0, 1.0);
      if (u(rng) < epsilon) {  // explore: a uniform n-subset, by a partial Fisher-Yates shuffle
        std::vector<size_t> idx(pool.size());
        std::iota(idx.begin(), idx.end(), size_t{0});
        for (size_t i = 0; i < n; ++i) {
          std::uniform_int_distribution<size_t> pick(i, idx.size() - 1);
          std::swap(idx[i], idx[pick(rng)]);
        }
        idx.resize(n);
        return idx;
      }
      for (size_t i = 0; i < pool.size(); ++i) score[i] = pool[i].q;
      return top_by(pool, score, n);
    }
    case Policy::Blend: {
      std::vector<double> s(pool.size()), q(pool.size());
      for (size_t i = 0; i < pool.size(); ++i) s[i] = pool[i].similarity, q[i] = pool[i].q;
      auto zs = zscores(s), zq = zscores(q);
      for (size_t i = 0; i < pool.size(); ++i) score[i] = (1 - blend_w) * zs[i] + blend_w * zq[i];
      return top_by(pool, score, n);
    }
  }
  return {};
}

}  // namespace evk
