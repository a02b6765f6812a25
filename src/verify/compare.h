// The correctness check of one output against its reference: elementwise |got - ref| <= atol +
// rtol * |ref| (a NaN reference is matched only by NaN, an infinite one only by itself) and the
// norm bound ||got - ref|| <= rel_norm_bound * ||ref|| + atol * sqrt(n) over the finite part
// (the absolute term keeps a near-zero reference from rejecting an exact kernel), with the
// statistics an LLM needs to fix a kernel. A failure's text names the bound that failed and
// by how much; it never says "0 elements differ".
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
  double err_norm = 0, norm_bound = 0;  // ||got - ref|| and the bound it must stay under
  double atol = 0, rtol = 0;
  int64_t first_bad = -1;
  double expected = 0, got = 0;
  // "out.0: 12 of 4096 elements outside |out-ref| <= atol + rtol*|ref| (atol 0.01, rtol 0.01;
  //  max abs err 0.5, max rel err 2.1); first at [0, 3]: expected 1.25, got 0.75", or, when
  //  every element is close but the errors add up, the norm bound and how far it was exceeded.
  std::string describe(const std::string& name, const std::vector<int64_t>& shape) const;
};

// `got` holds ref.numel() elements of ref.dtype (raw bytes as the kernel left them).
CompareResult compare_output(const Tensor& ref, const uint8_t* got, const Tolerance& tol);

// "[1, 2, 3]" for flat index i in a row-major shape.
std::string index_str(int64_t flat, const std::vector<int64_t>& shape);

}  // namespace evk
