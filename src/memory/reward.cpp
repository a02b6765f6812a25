#include "memory/reward.h"

#include <algorithm>
#include <cmath>

namespace evk {

double draft_reward(bool feasible) { return feasible ? 1.0 : -1.0; }

double refine_reward(bool feasible, double best_ms, double new_ms) {
  if (!feasible) return -1.0;
  constexpr double kFloor = 1e-6;
  return std::tanh(std::log(std::max(best_ms, kFloor)) - std::log(std::max(new_ms, kFloor)));
}

double q_update(double q, double alpha, double credit) {
  return q + alpha * (credit - q);
}

void RunningStats::push(double x) {
  ++n;
  double d = x - mean;
  mean += d / static_cast<double>(n);
  m2 += d * (x - mean);
}

double RunningStats::stddev() const {
  return n > 0 ? std::sqrt(std::max(m2, 0.0) / static_cast<double>(n)) : 0.0;
}

double normalise_reward(double r, const RunningStats& s, double sigma_min, double clip) {
  double z = (r - s.mean) / std::max(s.stddev(), sigma_min);
  return std::clamp(z, -clip, clip);
}

}  // namespace evk
