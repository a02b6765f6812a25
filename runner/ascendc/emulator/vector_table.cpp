// The rows of the elementwise vector APIs (vector_table.h) and their numerics. Float and half
// compute in float, as the vector unit does (half rounds once, on the store); int32 computes
// in double and wraps to 32 bits.
#include "vector_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace evk::runner::ascendc::emu {
namespace {

using F2 = float (*)(float, float);
using I2 = double (*)(double, double);
using F1 = float (*)(float);
using I1 = int32_t (*)(int32_t);

// One loop per (element type, numerics): the numerics inline into it.
template <class T, F2 f>
void float2(uint8_t* d, const uint8_t* a, const uint8_t* b, double s, uint32_t n) {
  T* dp = reinterpret_cast<T*>(d);
  const T* ap = reinterpret_cast<const T*>(a);
  const T* bp = reinterpret_cast<const T*>(b);
  for (uint32_t i = 0; i < n; ++i) {
    float y = static_cast<float>(bp ? static_cast<double>(bp[i]) : s);
    dp[i] = static_cast<T>(f(static_cast<float>(static_cast<double>(ap[i])), y));
  }
}

template <I2 f>
void int2(uint8_t* d, const uint8_t* a, const uint8_t* b, double s, uint32_t n) {
  int32_t* dp = reinterpret_cast<int32_t*>(d);
  const int32_t* ap = reinterpret_cast<const int32_t*>(a);
  const int32_t* bp = reinterpret_cast<const int32_t*>(b);
  for (uint32_t i = 0; i < n; ++i) {
    int64_t r = static_cast<int64_t>(f(ap[i], bp ? static_cast<double>(bp[i]) : s));
    dp[i] = static_cast<int32_t>(static_cast<uint32_t>(r));
  }
}

template <class T, F1 f>
void float1(uint8_t* d, const uint8_t* a, const uint8_t*, double, uint32_t n) {
  T* dp = reinterpret_cast<T*>(d);
  const T* ap = reinterpret_cast<const T*>(a);
  for (uint32_t i = 0; i < n; ++i) dp[i] = static_cast<T>(f(static_cast<float>(ap[i])));
}

template <I1 f>
void int1(uint8_t* d, const uint8_t* a, const uint8_t*, double, uint32_t n) {
  int32_t* dp = reinterpret_cast<int32_t*>(d);
  const int32_t* ap = reinterpret_cast<const int32_t*>(a);
  for (uint32_t i = 0; i < n; ++i) dp[i] = f(ap[i]);
}

// A row's Numerics: float and half through f, int32 through i where the row takes it.
template <F2 f>
constexpr Numerics two() {
  return {&float2<float, f>, &float2<_Float16, f>, nullptr};
}
template <F2 f, I2 i>
constexpr Numerics two() {
  return {&float2<float, f>, &float2<_Float16, f>, &int2<i>};
}
template <I2 i>
constexpr Numerics two_int() {
  return {nullptr, nullptr, &int2<i>};
}
template <F1 f>
constexpr Numerics one() {
  return {&float1<float, f>, &float1<_Float16, f>, nullptr};
}
template <F1 f, I1 i>
constexpr Numerics one() {
  return {&float1<float, f>, &float1<_Float16, f>, &int1<i>};
}

// ---- numerics ----
float add_f(float x, float y) {
  return x + y;
}
double add_i(double x, double y) {
  return x + y;
}
float sub_f(float x, float y) {
  return x - y;
}
double sub_i(double x, double y) {
  return x - y;
}
float mul_f(float x, float y) {
  return x * y;
}
double mul_i(double x, double y) {
  return x * y;
}
float div_f(float x, float y) {
  return x / y;
}
float max_f(float x, float y) {  // NaN propagates
  return std::isnan(x) || std::isnan(y) ? x + y : std::fmax(x, y);
}
double max_i(double x, double y) {
  return std::max(x, y);
}
float min_f(float x, float y) {
  return std::isnan(x) || std::isnan(y) ? x + y : std::fmin(x, y);
}
double min_i(double x, double y) {
  return std::min(x, y);
}
double shl_i(double x, double y) {
  return static_cast<double>(
      static_cast<int32_t>(static_cast<uint32_t>(x) << (static_cast<uint32_t>(y) & 31)));
}
double shr_i(double x, double y) {  // arithmetic on signed integers, as the vector unit's shift
  return static_cast<double>(static_cast<int32_t>(x) >> (static_cast<uint32_t>(y) & 31));
}
float exp_f(float x) {
  return std::exp(x);
}
float ln_f(float x) {
  return std::log(x);
}
float abs_f(float x) {
  return std::fabs(x);
}
int32_t abs_i(int32_t x) {
  return std::abs(x);
}
float sqrt_f(float x) {
  return std::sqrt(x);
}
float rsqrt_f(float x) {
  return 1.0f / std::sqrt(x);
}
float reciprocal_f(float x) {
  return 1.0f / x;
}
float relu_f(float x) {  // NaN propagates, as in PyTorch
  return x > 0 || std::isnan(x) ? x : 0.0f;
}
int32_t relu_i(int32_t x) {
  return std::max<int32_t>(x, 0);
}
float erf_f(float x) {
  return std::erf(x);
}
float sin_f(float x) {
  return std::sin(x);
}
float cos_f(float x) {
  return std::cos(x);
}

using enum Shape;
using enum Cost;

// ---- the rows ----
const VectorApi kRows[] = {
    {EVK_ACL_ADD, "Add", kBinary, kFloatsInt, kSimple, two<add_f, add_i>()},
    {EVK_ACL_SUB, "Sub", kBinary, kFloatsInt, kSimple, two<sub_f, sub_i>()},
    {EVK_ACL_MUL, "Mul", kBinary, kFloatsInt, kSimple, two<mul_f, mul_i>()},
    {EVK_ACL_DIV, "Div", kBinary, kFloats, kDivide, two<div_f>()},
    {EVK_ACL_MAX, "Max", kBinary, kFloatsInt, kSimple, two<max_f, max_i>()},
    {EVK_ACL_MIN, "Min", kBinary, kFloatsInt, kSimple, two<min_f, min_i>()},
    {EVK_ACL_ADDS, "Adds", kScalar, kFloatsInt, kSimple, two<add_f, add_i>()},
    {EVK_ACL_MULS, "Muls", kScalar, kFloatsInt, kSimple, two<mul_f, mul_i>()},
    {EVK_ACL_MAXS, "Maxs", kScalar, kFloatsInt, kSimple, two<max_f, max_i>()},
    {EVK_ACL_MINS, "Mins", kScalar, kFloatsInt, kSimple, two<min_f, min_i>()},
    {EVK_ACL_SHLS, "ShiftLeft", kScalar, kInt, kSimple, two_int<shl_i>()},
    {EVK_ACL_SHRS, "ShiftRight", kScalar, kInt, kSimple, two_int<shr_i>()},
    {EVK_ACL_EXP, "Exp", kUnary, kFloats, kTranscendental, one<exp_f>()},
    {EVK_ACL_LN, "Ln", kUnary, kFloats, kTranscendental, one<ln_f>()},
    {EVK_ACL_ABS, "Abs", kUnary, kFloatsInt, kSimple, one<abs_f, abs_i>()},
    {EVK_ACL_SQRT, "Sqrt", kUnary, kFloats, kTranscendental, one<sqrt_f>()},
    {EVK_ACL_RSQRT, "Rsqrt", kUnary, kFloats, kTranscendental, one<rsqrt_f>()},
    {EVK_ACL_RECIPROCAL, "Reciprocal", kUnary, kFloats, kTranscendental, one<reciprocal_f>()},
    {EVK_ACL_RELU, "Relu", kUnary, kFloatsInt, kSimple, one<relu_f, relu_i>()},
    {EVK_ACL_ERF, "Erf", kUnary, kFloats, kPolynomial, one<erf_f>()},
    {EVK_ACL_SIN, "Sin", kUnary, kFloats, kPolynomial, one<sin_f>()},
    {EVK_ACL_COS, "Cos", kUnary, kFloats, kPolynomial, one<cos_f>()},
    {EVK_ACL_RSUM, "ReduceSum", kReduce, kFloats, kSimple, {}},
    {EVK_ACL_RMAX, "ReduceMax", kReduce, kFloats, kSimple, {}},
    {EVK_ACL_RMIN, "ReduceMin", kReduce, kFloats, kSimple, {}},
};

}  // namespace

const VectorApi* vector_api(int32_t op) {
  for (const VectorApi& r : kRows)
    if (r.op == op) return &r;
  return nullptr;
}

}  // namespace evk::runner::ascendc::emu
