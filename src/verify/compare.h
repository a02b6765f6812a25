// The correctness check of one output against its reference: allclose (|got - ref| <= atol +
// rtol * |ref|, NaN never close) and the relative error norm ||got - ref|| / ||ref|| under a
// bound, with the statistics an LLM needs to fix a kernel.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace evk {

struct Tolerance {
  double atol = 1e-2, rtol = 1e-2, rel_norm_bound = 1e-2;
};

struct CompareResult {
  bool ok = true;
  int64_t numel = 0;
  int64_t mismatches = 0;   // elements failing allclose
  int64_t unwritten = 0;    // elements still holding the poison (NaN or the integer sentinel)
  double max_abs = 0, max_rel = 0, rel_norm = 0;
  int64_t first_bad = -1;
  double expected = 0, got = 0;
  // "out.0: 12 of 4096 elements differ (max abs err 0.5, max rel err 2.1, rel norm 0.03);
  //  first at [0, 3]: expected 1.25, got 0.75"
  std::string describe(const std::string& name, const std::vector<int64_t>& shape) const;
};

// `got` holds ref.numel() elements of ref.dtype (raw bytes as the kernel left them).
CompareResult compare_output(const Tensor& ref, const uint8_t* got, const Tolerance& tol);

// "[1, 2, 3]" for flat index i in a row-major shape.
std::string index_str(int64_t flat, const std::vector<int64_t>& shape);

}  // namespace evk
