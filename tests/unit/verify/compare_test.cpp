// Elementwise tolerance + norm bound with an absolute term, and the feedback they give.
#include "verify/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace evk {
namespace {

Tensor f32(std::vector<float> v, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype = DType::F32;
  t.shape = std::move(shape);
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

TEST(Compare, WithinToleranceIsOk) {
  Tensor ref = f32({1, 2, 3, 4}, {2, 2});
  std::vector<float> got = {1.005f, 2.01f, 3, 4};
  auto r = compare_output(ref, reinterpret_cast<const uint8_t*>(got.data()), {});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.mismatches, 0);
}

Tensor f64(const std::vector<float>& v) {
  Tensor t;
  t.dtype = DType::F64;
  t.shape = {static_cast<int64_t>(v.size())};
  t.data.resize(v.size() * 8);
  for (size_t i = 0; i < v.size(); ++i) {
    double d = v[i];
    std::memcpy(t.data.data() + 8 * i, &d, 8);
  }
  return t;
}

// float32 outputs that are all close take a fast path; its figures are those of the general
// loop (here through float64, whose values are the same doubles), the norm check included.
TEST(Compare, TheFloat32FastPathGivesTheGeneralLoopsFigures) {
  std::vector<float> ref(10007), got(10007);
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = std::sin(0.37f * static_cast<float>(i)) * 3.0f;
    got[i] = ref[i] * (1.0f + 0.004f * std::cos(static_cast<float>(i)));
  }
  for (Tolerance tol : {Tolerance{}, Tolerance{0, 0.5, 1e-4}}) {
    auto fast =
        compare_output(f32(ref, {10007}), reinterpret_cast<const uint8_t*>(got.data()), tol);
    Tensor g64 = f64(got);
    auto general = compare_output(f64(ref), g64.data.data(), tol);
    EXPECT_EQ(fast.ok, general.ok);
    EXPECT_EQ(fast.mismatches, 0);
    EXPECT_EQ(fast.max_abs, general.max_abs);
    EXPECT_EQ(fast.max_rel, general.max_rel);
    EXPECT_EQ(fast.err_norm, general.err_norm);
    EXPECT_EQ(fast.rel_norm, general.rel_norm);
    EXPECT_EQ(fast.norm_bound, general.norm_bound);
  }
  // The second tolerance passes every element but not the norm bound.
  auto tight = compare_output(f32(ref, {10007}), reinterpret_cast<const uint8_t*>(got.data()),
                              Tolerance{0, 0.5, 1e-4});
  EXPECT_FALSE(tight.ok);
}

TEST(Compare, ReportsCountMaxErrorsAndFirstBadIndex) {
  Tensor ref = f32({1, 2, 3, 4}, {2, 2});
  std::vector<float> got = {1, 2, 3.5f, 5};
  auto r = compare_output(ref, reinterpret_cast<const uint8_t*>(got.data()), {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 2);
  EXPECT_EQ(r.first_bad, 2);
  EXPECT_DOUBLE_EQ(r.max_abs, 1.0);
  std::string d = r.describe("out.0", {2, 2});
  EXPECT_NE(d.find("2 of 4 elements outside"), std::string::npos) << d;
  EXPECT_NE(d.find("[1, 0]"), std::string::npos) << d;
  EXPECT_NE(d.find("expected 3"), std::string::npos) << d;
}

TEST(Compare, NanPoisonCountsAsUnwritten) {
  Tensor ref = f32({1, 2, 3, 4}, {4});
  std::vector<float> got = {1, 2, NAN, NAN};
  auto r = compare_output(ref, reinterpret_cast<const uint8_t*>(got.data()), {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.unwritten, 2);
  EXPECT_NE(r.describe("out.0", {4}).find("never written"), std::string::npos);
}

TEST(Compare, NearZeroReferenceAcceptsAnExactKernel) {
  // KernelBench level2 23_Conv3d_GroupNorm_Mean: outputs of about 1e-17; an exact kernel's
  // rounding differences are relatively large but absolutely nothing.
  std::vector<float> r(128), g(128);
  for (int i = 0; i < 128; ++i) r[i] = 1e-17f * static_cast<float>(i % 7 - 3), g[i] = r[i] + 7e-17f;
  Tensor ref = f32(r, {128});
  auto c = compare_output(ref, reinterpret_cast<const uint8_t*>(g.data()), {});
  EXPECT_TRUE(c.ok) << c.describe("out.0", {128});
}

TEST(Compare, NormBoundCatchesErrorsThatAddUpAndSaysSo) {
  // Every element within atol + rtol*|ref| (rtol loose), but the norm bound is tighter.
  std::vector<float> r(100, 10.0f), g(100, 10.5f);
  Tensor ref = f32(r, {100});
  Tolerance tol{1e-2, 1e-1, 1e-2};
  auto c = compare_output(ref, reinterpret_cast<const uint8_t*>(g.data()), tol);
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_FALSE(c.ok);
  std::string d = c.describe("out.0", {100});
  EXPECT_EQ(d.find("0 of"), std::string::npos) << d;
  EXPECT_NE(d.find("error norm"), std::string::npos) << d;
  EXPECT_NE(d.find("x over"), std::string::npos) << d;
  EXPECT_NEAR(c.err_norm, 5.0, 1e-3);
  EXPECT_NEAR(c.norm_bound, 1.1, 1e-6);
}

TEST(Compare, NanInTheReferenceIsMatchedOnlyByNan) {
  Tensor ref = f32({1, NAN, 3}, {3});
  std::vector<float> zero = {1, 0, 3}, nan = {1, NAN, 3};
  EXPECT_FALSE(compare_output(ref, reinterpret_cast<const uint8_t*>(zero.data()), {}).ok);
  EXPECT_TRUE(compare_output(ref, reinterpret_cast<const uint8_t*>(nan.data()), {}).ok);
}

TEST(Compare, IntegerOutputsMustMatchExactly) {
  Tensor ref;
  ref.dtype = DType::I64;
  ref.shape = {3};
  std::vector<int64_t> v = {1, 2, 3}, got = {1, 2, 4};
  ref.data.resize(24);
  std::memcpy(ref.data.data(), v.data(), 24);
  auto r = compare_output(ref, reinterpret_cast<const uint8_t*>(got.data()), {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.first_bad, 2);
}

}  // namespace
}  // namespace evk

namespace evk {
namespace {

// Half-precision outputs are compared as float32 ones are: the reference's and the output's
// halves decoded exactly, the same tolerance, NaN poison counted as never written.
TEST(Compare, HalfOutputsAreComparedLikeFloat) {
  auto halves = [](std::vector<float> v) {
    Tensor t;
    t.dtype = DType::F16;
    t.shape = {static_cast<int64_t>(v.size())};
    t.data.resize(v.size() * 2);
    for (size_t i = 0; i < v.size(); ++i) {
      _Float16 h = static_cast<_Float16>(v[i]);
      std::memcpy(t.data.data() + 2 * i, &h, 2);
    }
    return t;
  };
  Tensor ref = halves({1.0f, -2.5f, 0.0f, 65504.0f, 6.0e-8f});
  EXPECT_EQ(ref.at(1), -2.5);
  EXPECT_EQ(ref.at(3), 65504.0);
  EXPECT_NEAR(ref.at(4), 5.960464477539063e-08, 1e-20);  // the smallest subnormal
  EXPECT_TRUE(
      compare_output(ref, halves({1.0f, -2.5f, 0.0f, 65504.0f, 6.0e-8f}).data.data(), {}).ok);
  auto wrong = compare_output(ref, halves({1.0f, -2.0f, 0.0f, 65504.0f, 0.0f}).data.data(), {});
  EXPECT_FALSE(wrong.ok);
  EXPECT_EQ(wrong.first_bad, 1);
  std::vector<uint8_t> poison(10, 0xFF);
  auto unwritten = compare_output(ref, poison.data(), {});
  EXPECT_FALSE(unwritten.ok);
  EXPECT_EQ(unwritten.unwritten, 5);
}

}  // namespace
}  // namespace evk
