#include "verify/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace evk {

std::string index_str(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    int64_t d = std::max<int64_t>(1, shape[i]);
    idx[i] = flat % d;
    flat /= d;
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string CompareResult::describe(const std::string& name, const std::vector<int64_t>& shape) const {
  std::string s;
  if (mismatches > 0) {
    s = fmt::format("{}: {} of {} elements outside |out-ref| <= atol + rtol*|ref| (atol {:.3g}, "
                    "rtol {:.3g}; max abs err {:.4g}, max rel err {:.4g})",
                    name, mismatches, numel, atol, rtol, max_abs, max_rel);
  } else {
    s = fmt::format("{}: every element is within atol + rtol*|ref|, but the error norm "
                    "||out-ref|| = {:.4g} exceeds the bound rel_norm*||ref|| + atol*sqrt(n) = "
                    "{:.4g} ({:.3g}x over; max abs err {:.4g}): small errors everywhere (an "
                    "approximation or accumulation order that is too loose)",
                    name, err_norm, norm_bound, norm_bound > 0 ? err_norm / norm_bound : 0.0, max_abs);
  }
  if (first_bad >= 0)
    s += fmt::format("; first at {}: expected {:.6g}, got {:.6g}", index_str(first_bad, shape),
                     expected, got);
  if (unwritten > 0)
    s += fmt::format("; {} elements were never written (they still hold the NaN poison the "
                     "harness fills outputs with)",
                     unwritten);
  return s;
}

namespace {

// The value of element i of raw bytes of dtype t, as double; `poison` is true when it still
// holds the harness's poison pattern.
double element(DType t, const uint8_t* p, int64_t i, bool& poison) {
  poison = false;
  switch (t) {
    case DType::F32: {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      poison = std::isnan(v);
      return v;
    }
    case DType::F64: {
      double v;
      std::memcpy(&v, p + 8 * i, 8);
      poison = std::isnan(v);
      return v;
    }
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      int e = (h >> 10) & 31, m = h & 1023;
      double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
      poison = std::isnan(v);
      return (h & 0x8000) ? -v : v;
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      poison = static_cast<uint32_t>(v) == 0xA5A5A5A5u;
      return v;
    }
    case DType::I64: {
      int64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      poison = static_cast<uint64_t>(v) == 0xA5A5A5A5A5A5A5A5ull;
      return static_cast<double>(v);
    }
    case DType::BOOL:
    case DType::U8:
      poison = p[i] == 0xA5;
      return p[i];
  }
  return 0;
}

// The common case at the cost of a memory pass: float32 outputs every one of which is finite
// and close. Fills `r` with what the general loop below would, by the same operations in the
// same order (so the same doubles), and returns true; false as soon as an element is not
// finite or not close (the general loop then does the bookkeeping of a mismatch).
bool compare_close_f32(const Tensor& ref, const uint8_t* got, const Tolerance& tol, CompareResult& r) {
  const float* e = ref.as<float>();
  double diff2 = 0, ref2 = 0, max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < r.numel; ++i) {
    float gf;
    std::memcpy(&gf, got + 4 * i, 4);
    const double ev = e[i], g = gf;
    const double d = std::fabs(g - ev);
    // NaN or infinite on either side fails one of these (d is then NaN or infinite).
    if (!std::isfinite(ev) || !(d <= tol.atol + tol.rtol * std::fabs(ev))) return false;
    ref2 += ev * ev;
    if (d == 0) continue;  // adds nothing to the error sums and maxima
    diff2 += d * d;
    max_abs = std::max(max_abs, d);
    // The division only where it can raise the maximum (the margin covers the rounding of the
    // product): the result is the one the general loop computes.
    const double den = std::max(std::fabs(ev), 1e-12);
    if (d >= max_rel * den * (1 - 1e-9)) max_rel = std::max(max_rel, d / den);
  }
  r.max_abs = max_abs;
  r.max_rel = max_rel;
  r.atol = tol.atol;
  r.rtol = tol.rtol;
  r.err_norm = std::sqrt(diff2);
  r.rel_norm = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0);
  r.norm_bound = tol.rel_norm_bound * std::sqrt(ref2) + tol.atol * std::sqrt(static_cast<double>(r.numel));
  r.ok = r.err_norm <= r.norm_bound;
  return true;
}

}  // namespace

CompareResult compare_output(const Tensor& ref, const uint8_t* got, const Tolerance& tol) {
  CompareResult r;
  r.numel = ref.numel();
  if (ref.dtype == DType::F32 && compare_close_f32(ref, got, tol, r)) return r;
  bool exact = ref.dtype != DType::F32 && ref.dtype != DType::F64 && ref.dtype != DType::F16;
  double diff2 = 0, ref2 = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < r.numel; ++i) {
    double e = ref.at(i);
    bool poison = false;
    double g = element(ref.dtype, got, i, poison);
    double d = std::fabs(g - e);
    bool close;
    if (exact) {
      close = g == e;
    } else if (std::isnan(e)) {
      close = std::isnan(g);  // a reference NaN is matched by a NaN
      d = close ? 0 : INFINITY;
    } else if (std::isinf(e)) {
      close = g == e;
      d = close ? 0 : INFINITY;
    } else {
      close = !std::isnan(g) && d <= tol.atol + tol.rtol * std::fabs(e);
      if (std::isnan(g)) d = INFINITY;
    }
    if (!std::isnan(e) && !std::isinf(e)) {
      diff2 += std::isfinite(d) ? d * d : INFINITY;
      ref2 += e * e;
      ++finite;
    }
    if (!close) {
      ++r.mismatches;
      if (poison && !std::isnan(e)) ++r.unwritten;
      if (r.first_bad < 0) r.first_bad = i, r.expected = e, r.got = g;
    }
    if (std::isfinite(d) || !close) {
      r.max_abs = std::max(r.max_abs, d);
      r.max_rel = std::max(r.max_rel, d / std::max(std::fabs(e), 1e-12));
    }
  }
  r.atol = tol.atol;
  r.rtol = tol.rtol;
  r.err_norm = std::sqrt(diff2);
  r.rel_norm = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0);
  r.norm_bound = tol.rel_norm_bound * std::sqrt(ref2) + tol.atol * std::sqrt(static_cast<double>(finite));
  r.ok = r.mismatches == 0 && (exact || r.err_norm <= r.norm_bound);
  return r;
}

}  // namespace evk
