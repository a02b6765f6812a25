// Phase B of retrieval: choosing N items from the recall pool (docs/architecture.md §5). Pure
// functions of the pool and a random generator, so the math is testable on its own.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace evk {

enum class Policy { Value, Blend, Similarity, None };
Policy policy_from(const std::string& name);  // UsageError naming the choices
std::string policy_name(Policy p);

struct PoolEntry {
  int64_t id = 0;
  double similarity = 0;
  double q = 0;  // Q of the stage being retrieved for; 0 when never updated
};

// Indices into `pool` of the chosen entries, in the order they go into the context.
//  value:      with probability epsilon, n uniformly at random without replacement (one draw
//              for the whole context, as in the paper); else the top n by q, ties by
//              similarity, then by position in the pool.
//  blend:      top n by (1 - w) z(similarity) + w z(q), z-scores within the pool.
//  similarity: the first n (the pool is ordered by similarity, best first).
//  none:       nothing.
std::vector<size_t> choose(const std::vector<PoolEntry>& pool, Policy policy, size_t n,
                           double epsilon, double blend_w, std::mt19937_64& rng);

// (x - mean) / std within the vector (population std); all zeros when the std is 0.
std::vector<double> zscores(const std::vector<double>& x);

}  // namespace evk
