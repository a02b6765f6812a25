// Rewards of the two stages and the online normaliser of refining rewards
// (docs/architecture.md §5). Pure functions; Memory persists the normaliser's statistics.
#pragma once
#include <cstdint>

namespace evk {

// Drafting: +1 when the candidate passed every gate, -1 otherwise.
double draft_reward(bool feasible);
// Refining: -1 when infeasible, else tanh(ln best_ms - ln new_ms): positive when faster than
// the task's best-so-far latency, in (-1, 1). Non-positive latencies are taken as 1e-6 ms.
double refine_reward(bool feasible, double best_ms, double new_ms);

// The Q update, the one place its formula is written: Q <- Q + alpha (credit - Q), an
// exponential moving average of the credits an item's contexts earned. Memory::update applies
// it and records each step (memory/q_history.h), so no reader replays it.
double q_update(double q, double alpha, double credit);

// Running mean and variance (Welford), population variance.
struct RunningStats {
  int64_t n = 0;
  double mean = 0, m2 = 0;
  void push(double x);
  double stddev() const;
};

// (r - mean) / max(stddev, sigma_min), clipped to [-clip, clip].
double normalise_reward(double r, const RunningStats& s, double sigma_min, double clip);

}  // namespace evk
