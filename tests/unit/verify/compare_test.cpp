// allclose + relative-norm comparison and its feedback.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "verify/compare.h"

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

TEST(Compare, ReportsCountMaxErrorsAndFirstBadIndex) {
  Tensor ref = f32({1, 2, 3, 4}, {2, 2});
  std::vector<float> got = {1, 2, 3.5f, 5};
  auto r = compare_output(ref, reinterpret_cast<const uint8_t*>(got.data()), {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 2);
  EXPECT_EQ(r.first_bad, 2);
  EXPECT_DOUBLE_EQ(r.max_abs, 1.0);
  std::string d = r.describe("out.0", {2, 2});
  EXPECT_NE(d.find("2 of 4"), std::string::npos) << d;
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

TEST(Compare, RelativeNormCatchesSmallScaleOutputs) {
  // Every element within atol, but the whole output is wrong relative to its scale.
  Tensor ref = f32({1e-3f, -2e-3f, 3e-3f, 1e-3f}, {4});
  std::vector<float> got = {0, 0, 0, 0};
  auto r = compare_output(ref, reinterpret_cast<const uint8_t*>(got.data()), {});
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_FALSE(r.ok);
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
