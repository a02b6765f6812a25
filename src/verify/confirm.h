// Confirmation before credit (issue 19): two feasible kernels of one task re-timed
// interleaved, so that a speed-up within the noise of separate measurements is only believed
// when it holds up side by side. Both libraries run in their own jailed runners (one candidate
// never shares a process with another), pinned to the same CPUs, on the same inputs, with the
// same threads; the parent alternates batches A B B A A B ... (each round's order flipped, so
// drift and cache warmth favour neither) and compares per-call times round by round.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace evk {

struct ConfirmOptions {
  int rounds = 16;              // A/B batch pairs
  double batch_target_ms = 20;  // the length of one batch (at most 64 calls)
  // Faster is confirmed when the median round ratio is at least 1 + min_gain and the
  // candidate won at least `min_wins` of the rounds (a sign test: 12 of 16 happens by chance
  // with probability 2517/65536 = 0.038 for an equal pair whose rounds are independent).
  double min_gain = 0.02;
  int min_wins = 12;
};

struct Confirmation {
  bool ran = false;                   // false: the confirmation itself failed (why in `note`)
  bool faster = false;                // the candidate is confirmed faster than the best
  double ratio = 0;                   // median over rounds of best_ms / candidate_ms (> 1: faster)
  double ratio_q1 = 0, ratio_q3 = 0;  // quartiles of the round ratios
  int rounds = 0, wins = 0;           // rounds, rounds the candidate was faster in
  double best_ms = 0, candidate_ms = 0;  // median per-call times in the interleaved run
  std::string note;
  bool cached = false;  // answered from the workspace's cache (the same pair measured before)
  // The machinery failed (an exception, not a kernel's behaviour): the one outcome that is not
  // cached, as an infra verdict is not.
  bool infra = false;
  nlohmann::json to_json() const;
  static Confirmation from_json(const nlohmann::json& j);
};

// The decision from the round ratios (best_ms / candidate_ms per round): pure, for tests.
Confirmation judge_rounds(const std::vector<double>& ratios, const ConfirmOptions& o);

}  // namespace evk
