// Vector compute: elementwise binary, scalar and unary operations, Duplicate, Cast, Compare and
// Select, and the reductions, each with its numerics and its charge on the vector pipe.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
using namespace emu;

namespace {
const char* op_name(int32_t op) {
  static const char* names[] = {"Add",        "Sub",  "Mul",       "Div",       "Max",
                                "Min",        "Adds", "Muls",      "Maxs",      "Mins",
                                "Exp",        "Ln",   "Abs",       "Sqrt",      "Rsqrt",
                                "Reciprocal", "Relu", "ReduceSum", "ReduceMax", "ReduceMin",
                                "Erf",        "Sin",  "Cos",       "ShiftLeft", "ShiftRight"};
  return op >= 0 && op <= EVK_ACL_SHRS ? names[op] : "an unknown vector operation";
}

double apply2(int32_t op, double a, double b, bool integer) {
  switch (op) {
    case EVK_ACL_ADD:
    case EVK_ACL_ADDS:
      return a + b;
    case EVK_ACL_SUB:
      return a - b;
    case EVK_ACL_MUL:
    case EVK_ACL_MULS:
      return a * b;
    case EVK_ACL_DIV:
      return a / b;
    case EVK_ACL_MAX:
    case EVK_ACL_MAXS:
      return std::max(a, b);
    case EVK_ACL_MIN:
    case EVK_ACL_MINS:
      return std::min(a, b);
    case EVK_ACL_SHLS:
      return static_cast<double>(
          static_cast<int32_t>(static_cast<uint32_t>(a) << (static_cast<uint32_t>(b) & 31)));
    case EVK_ACL_SHRS:  // arithmetic on signed integers, as the vector unit's shift
      return static_cast<double>(static_cast<int32_t>(a) >> (static_cast<uint32_t>(b) & 31));
    default:
      (void)integer;
      return 0;
  }
}

template <class T>
void map_binary(int32_t op, T* d, const T* a, const T* b, uint32_t n, double s, bool scalar) {
  for (uint32_t i = 0; i < n; ++i) {
    double x = static_cast<double>(a[i]);
    double y = scalar ? s : static_cast<double>(b[i]);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, _Float16>) {
      float xf = static_cast<float>(x), yf = static_cast<float>(y);
      float r;
      switch (op) {
        case EVK_ACL_ADD:
        case EVK_ACL_ADDS:
          r = xf + yf;
          break;
        case EVK_ACL_SUB:
          r = xf - yf;
          break;
        case EVK_ACL_MUL:
        case EVK_ACL_MULS:
          r = xf * yf;
          break;
        case EVK_ACL_DIV:
          r = xf / yf;
          break;
        case EVK_ACL_MAX:
        case EVK_ACL_MAXS:
          r = std::isnan(xf) || std::isnan(yf) ? xf + yf : std::fmax(xf, yf);  // NaN propagates
          break;
        default:
          r = std::isnan(xf) || std::isnan(yf) ? xf + yf : std::fmin(xf, yf);
          break;
      }
      d[i] = static_cast<T>(r);
    } else {
      int64_t r = static_cast<int64_t>(apply2(op, x, y, true));
      d[i] = static_cast<T>(static_cast<int32_t>(static_cast<uint32_t>(r)));
    }
  }
}

template <class T>
void map_unary(int32_t op, T* d, const T* a, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    float x = static_cast<float>(a[i]);
    float r;
    switch (op) {
      case EVK_ACL_EXP:
        r = std::exp(x);
        break;
      case EVK_ACL_LN:
        r = std::log(x);
        break;
      case EVK_ACL_ABS:
        r = std::fabs(x);
        break;
      case EVK_ACL_SQRT:
        r = std::sqrt(x);
        break;
      case EVK_ACL_RSQRT:
        r = 1.0f / std::sqrt(x);
        break;
      case EVK_ACL_RECIPROCAL:
        r = 1.0f / x;
        break;
      case EVK_ACL_ERF:
        r = std::erf(x);
        break;
      case EVK_ACL_SIN:
        r = std::sin(x);
        break;
      case EVK_ACL_COS:
        r = std::cos(x);
        break;
      default:
        r = x > 0 || std::isnan(x) ? x : 0.0f;  // NaN propagates, as in PyTorch
        break;
    }
    if constexpr (std::is_same_v<T, int32_t>) {
      d[i] = op == EVK_ACL_ABS ? std::abs(a[i]) : std::max<int32_t>(a[i], 0);
    } else {
      d[i] = static_cast<T>(r);
    }
  }
}
}  // namespace

#define EVK_DISPATCH(dtype, CALL) \
  switch (dtype) {                \
    case EVK_F32: {               \
      using T = float;            \
      CALL;                       \
      break;                      \
    }                             \
    case EVK_F16: {               \
      using T = _Float16;         \
      CALL;                       \
      break;                      \
    }                             \
    case EVK_I32: {               \
      using T = int32_t;          \
      CALL;                       \
      break;                      \
    }                             \
    default:                      \
      break;                      \
  }

void Emulator::binary(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* b, uint32_t n) {
  Impl& I = impl();
  const char* api = op_name(op);
  if (op == EVK_ACL_DIV)
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32});
  else
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  if (a->dtype != d->dtype || b->dtype != d->dtype)
    fail("DTYPE_UNSUPPORTED", fmt::format("{} needs the same element type for all operands", api));
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "first source");
  Operand ob = operand(*this, I, b, n, api, "second source");
  EVK_DISPATCH(d->dtype,
               map_binary<T>(op, reinterpret_cast<T*>(od.ptr), reinterpret_cast<const T*>(oa.ptr),
                             reinterpret_cast<const T*>(ob.ptr), n, 0, false))
  uint32_t cpr = op == EVK_ACL_DIV ? kVecCyclesDiv : kVecCyclesSimple;
  schedule(I, kVec, vec_cycles(n * dtype_bytes(d->dtype), cpr), {oa.slot, ob.slot}, {od.slot});
}

void Emulator::scalar_op(int32_t op, const evk_lt* d, const evk_lt* a, double s, uint32_t n) {
  Impl& I = impl();
  const char* api = op_name(op);
  if (op == EVK_ACL_SHLS || op == EVK_ACL_SHRS)
    need_dtype(*this, api, d->dtype, {EVK_I32});
  else
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  if (a->dtype != d->dtype)
    fail("DTYPE_UNSUPPORTED", fmt::format("{} needs the same element type for both tensors", api));
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "source");
  EVK_DISPATCH(d->dtype, map_binary<T>(op, reinterpret_cast<T*>(od.ptr),
                                       reinterpret_cast<const T*>(oa.ptr), nullptr, n, s, true))
  schedule(I, kVec, vec_cycles(n * dtype_bytes(d->dtype), kVecCyclesSimple), {oa.slot}, {od.slot});
}

void Emulator::unary(int32_t op, const evk_lt* d, const evk_lt* a, uint32_t n) {
  Impl& I = impl();
  const char* api = op_name(op);
  if (op == EVK_ACL_ABS || op == EVK_ACL_RELU)
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  else
    need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32});
  if (a->dtype != d->dtype)
    fail("DTYPE_UNSUPPORTED", fmt::format("{} needs the same element type for both tensors", api));
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "source");
  EVK_DISPATCH(d->dtype, map_unary<T>(op, reinterpret_cast<T*>(od.ptr),
                                      reinterpret_cast<const T*>(oa.ptr), n))
  bool trans = op == EVK_ACL_EXP || op == EVK_ACL_LN || op == EVK_ACL_SQRT || op == EVK_ACL_RSQRT ||
               op == EVK_ACL_RECIPROCAL;
  // Erf, Sin and Cos are library APIs: a range reduction and a polynomial, about a dozen
  // vector instructions (model: three transcendental passes).
  bool poly = op == EVK_ACL_ERF || op == EVK_ACL_SIN || op == EVK_ACL_COS;
  uint32_t cpr =
      poly ? 3 * kVecCyclesTranscendental : (trans ? kVecCyclesTranscendental : kVecCyclesSimple);
  double dur = vec_cycles(n * dtype_bytes(d->dtype), cpr) + (poly ? 2.0 * kVecStartupCycles : 0);
  schedule(I, kVec, dur, {oa.slot}, {od.slot});
}

void Emulator::duplicate(const evk_lt* d, double s, uint32_t n) {
  Impl& I = impl();
  need_dtype(*this, "Duplicate", d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  Operand od = operand(*this, I, d, n, "Duplicate", "destination");
  size_t es = dtype_bytes(d->dtype);
  for (uint32_t i = 0; i < n; ++i) store(od.ptr + i * es, d->dtype, s);
  schedule(I, kVec, vec_cycles(n * es, kVecCyclesSimple), {}, {od.slot});
}

void Emulator::cast(const evk_lt* d, const evk_lt* a, int32_t round, uint32_t n) {
  Impl& I = impl();
  need_dtype(*this, "Cast (destination)", d->dtype, {EVK_F16, EVK_F32, EVK_I32});
  need_dtype(*this, "Cast (source)", a->dtype, {EVK_F16, EVK_F32, EVK_I32});
  if (d->dtype == a->dtype)
    fail("DTYPE_UNSUPPORTED",
         "Cast between tensors of the same type: use DataCopy or Adds(dst, src, 0, n)");
  bool to_int = d->dtype == EVK_I32;
  if (to_int && round == EVK_ROUND_NONE)
    fail("DTYPE_UNSUPPORTED",
         fmt::format("Cast from {} to int32_t with RoundMode::CAST_NONE: a float to "
                     "integer Cast needs a rounding mode (CAST_RINT, CAST_FLOOR, "
                     "CAST_CEIL, CAST_ROUND or CAST_TRUNC)",
                     dtype_text(a->dtype)));
  Operand od = operand(*this, I, d, n, "Cast", "destination");
  Operand oa = operand(*this, I, a, n, "Cast", "source");
  size_t ed = dtype_bytes(d->dtype), ea = dtype_bytes(a->dtype);
  for (uint32_t i = 0; i < n; ++i) {
    double x = load(oa.ptr + i * ea, a->dtype);
    if (to_int) {
      switch (round) {
        case EVK_ROUND_FLOOR:
          x = std::floor(x);
          break;
        case EVK_ROUND_CEIL:
          x = std::ceil(x);
          break;
        case EVK_ROUND_ROUND:
          x = std::round(x);
          break;
        case EVK_ROUND_TRUNC:
          x = std::trunc(x);
          break;
        default:
          x = std::nearbyint(x);
          break;
      }
    }
    store(od.ptr + i * ed, d->dtype, x);
  }
  schedule(I, kVec, vec_cycles(n * std::max(ed, ea), kVecCyclesSimple), {oa.slot}, {od.slot});
}

void Emulator::compare(const evk_lt* mask, const evk_lt* a, const evk_lt* b, double s,
                       bool with_scalar, int32_t mode, uint32_t n) {
  Impl& I = impl();
  const char* api = with_scalar ? "CompareScalar" : "Compare";
  need_dtype(*this, api, a->dtype, {EVK_F16, EVK_F32, EVK_I32});
  size_t es = dtype_bytes(a->dtype);
  if ((n * es) % kVecBytesPerRepeat != 0)
    fail("UNALIGNED_COPY", fmt::format("{} of {} elements ({} bytes): Compare works on whole "
                                       "256-byte repeats, so count * sizeof(T) must be a multiple "
                                       "of 256 ({} elements); pad the tile",
                                       api, n, n * es, kVecBytesPerRepeat / es));
  if (mask->dtype != EVK_U8)
    fail("DTYPE_UNSUPPORTED",
         fmt::format("{}: the mask destination must be a LocalTensor<uint8_t>", api));
  Operand om = operand(*this, I, mask, (n + 7) / 8, api, "mask");
  Operand oa = operand(*this, I, a, n, api, "first source");
  Operand ob = with_scalar ? oa : operand(*this, I, b, n, api, "second source");
  for (uint32_t i = 0; i < n; i += 8) {
    uint8_t bits = 0;
    for (uint32_t k = 0; k < 8 && i + k < n; ++k) {
      double x = load(oa.ptr + (i + k) * es, a->dtype);
      double y = with_scalar ? s : load(ob.ptr + (i + k) * es, a->dtype);
      bool r = mode == EVK_CMP_LT   ? x < y
               : mode == EVK_CMP_GT ? x > y
               : mode == EVK_CMP_EQ ? x == y
               : mode == EVK_CMP_LE ? x <= y
               : mode == EVK_CMP_GE ? x >= y
                                    : x != y;
      bits |= static_cast<uint8_t>(r) << k;
    }
    om.ptr[i / 8] = bits;
  }
  schedule(I, kVec, vec_cycles(n * es, kVecCyclesSimple), {oa.slot, ob.slot}, {om.slot});
}

void Emulator::select(const evk_lt* d, const evk_lt* mask, const evk_lt* a, const evk_lt* b,
                      double s, int32_t mode, uint32_t n) {
  Impl& I = impl();
  const char* api = "Select";
  need_dtype(*this, api, d->dtype, {EVK_F16, EVK_F32});
  bool scalar = b == nullptr;
  if (scalar != (mode == EVK_SEL_TENSOR_SCALAR))
    fail("QUEUE_MISUSE",
         "Select: use SELMODE::VSEL_TENSOR_SCALAR_MODE with a scalar second source "
         "and SELMODE::VSEL_TENSOR_TENSOR_MODE with a tensor");
  Operand od = operand(*this, I, d, n, api, "destination");
  Operand om = operand(*this, I, mask, (n + 7) / 8, api, "mask");
  Operand oa = operand(*this, I, a, n, api, "first source");
  Operand ob = scalar ? oa : operand(*this, I, b, n, api, "second source");
  size_t es = dtype_bytes(d->dtype);
  for (uint32_t i = 0; i < n; ++i) {
    bool bit = (om.ptr[i / 8] >> (i % 8)) & 1;
    double v =
        bit ? load(oa.ptr + i * es, d->dtype) : (scalar ? s : load(ob.ptr + i * es, d->dtype));
    store(od.ptr + i * es, d->dtype, v);
  }
  schedule(I, kVec, vec_cycles(n * es, kVecCyclesSimple), {om.slot, oa.slot, ob.slot}, {od.slot});
}

void Emulator::reduce(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* work, uint32_t n,
                      bool index) {
  Impl& I = impl();
  const char* api = op_name(op);
  need_dtype(*this, api, a->dtype, {EVK_F16, EVK_F32});
  if (d->dtype != a->dtype || work->dtype != a->dtype)
    fail("DTYPE_UNSUPPORTED",
         fmt::format("{} needs the same element type for dst, src and the work tensor", api));
  size_t es = dtype_bytes(a->dtype);
  uint32_t repeats = ceil_div(static_cast<uint64_t>(n) * es, kVecBytesPerRepeat);
  uint32_t work_need = (repeats * static_cast<uint32_t>(es) + kUbAlign - 1) / kUbAlign * kUbAlign /
                       static_cast<uint32_t>(es);
  if (n == 0) fail("UB_OUT_OF_BOUNDS", fmt::format("{} of 0 elements", api));
  Operand od = operand(*this, I, d, index ? 2 : 1, api, "destination");
  Operand oa = operand(*this, I, a, n, api, "source");
  if (work->len < work_need)
    fail("REDUCE_WORKSPACE", fmt::format("{} of {} elements needs a work tensor of at least {} "
                                         "elements (one per 256-byte repeat, rounded up to 32 "
                                         "bytes); the work tensor holds {}",
                                         api, n, work_need, work->len));
  Operand ow = operand(*this, I, work, work_need, api, "work");
  double acc = load(oa.ptr, a->dtype);
  uint32_t at = 0;
  for (uint32_t i = 1; i < n; ++i) {
    double x = load(oa.ptr + i * es, a->dtype);
    if (op == EVK_ACL_RSUM)
      acc = static_cast<float>(acc + x);
    else if (op == EVK_ACL_RMAX ? x > acc : x < acc)
      acc = x, at = i;
  }
  store(od.ptr, d->dtype, acc);
  if (index && op != EVK_ACL_RSUM) {
    uint32_t bits = at;
    std::memcpy(od.ptr + es, &bits, es);  // the index's integer bits, as the API stores it
  }
  schedule(I, kVec,
           vec_cycles(static_cast<uint64_t>(n) * es, kVecCyclesSimple) + kVecCyclesReduceTail,
           {oa.slot}, {od.slot, ow.slot});
}

void Emulator::whole_reduce(int32_t op, const evk_lt* d, const evk_lt* a, int32_t mask,
                            int32_t repeat, int32_t dst_rep, int32_t src_blk, int32_t src_rep,
                            int32_t order) {
  Impl& I = impl();
  const char* api = op == EVK_ACL_RSUM   ? "WholeReduceSum"
                    : op == EVK_ACL_RMAX ? "WholeReduceMax"
                                         : "WholeReduceMin";
  need_dtype(*this, api, a->dtype, {EVK_F16, EVK_F32});
  size_t es = dtype_bytes(a->dtype);
  int32_t per_repeat = static_cast<int32_t>(kVecBytesPerRepeat / es),
          per_block = static_cast<int32_t>(kUbAlign / es);
  if (mask < 1 || mask > per_repeat || repeat < 1 || repeat > 255 || dst_rep < 0 || src_blk < 0 ||
      src_rep < 0)
    fail("QUEUE_MISUSE", fmt::format("{} with mask {} and repeatTimes {}: mask counts the elements "
                                     "reduced per repeat (1..{} for {}), repeatTimes is 1..255, "
                                     "strides are non-negative",
                                     api, mask, repeat, per_repeat, dtype_text(a->dtype)));
  int32_t blocks = (mask + per_block - 1) / per_block;
  uint64_t src_need = static_cast<uint64_t>(repeat - 1) * src_rep * per_block +
                      static_cast<uint64_t>(blocks - 1) * src_blk * per_block + per_block;
  int32_t entry =
      (op == EVK_ACL_RSUM || order == EVK_ORDER_ONLY_VALUE || order == EVK_ORDER_ONLY_INDEX) ? 1
                                                                                             : 2;
  uint64_t dst_need = static_cast<uint64_t>(repeat - 1) * dst_rep * entry + entry;
  Operand od = operand(*this, I, d, static_cast<uint32_t>(dst_need), api, "destination", false);
  Operand oa = operand(*this, I, a, static_cast<uint32_t>(std::min<uint64_t>(src_need, a->len)),
                       api, "source");
  if (src_need > a->len)
    fail("UB_OUT_OF_BOUNDS",
         fmt::format("{}: the repeats read {} elements of a source tensor of {}", api, src_need,
                     a->len));
  for (int32_t r = 0; r < repeat; ++r) {
    double acc = 0;
    int32_t at = 0;
    for (int32_t k = 0; k < mask; ++k) {
      uint64_t e = static_cast<uint64_t>(r) * src_rep * per_block +
                   static_cast<uint64_t>(k / per_block) * src_blk * per_block + k % per_block;
      double x = load(oa.ptr + e * es, a->dtype);
      if (k == 0)
        acc = x;
      else if (op == EVK_ACL_RSUM)
        acc = static_cast<float>(acc + x);
      else if (op == EVK_ACL_RMAX ? x > acc : x < acc)
        acc = x, at = k;
    }
    uint8_t* out = od.ptr + static_cast<uint64_t>(r) * dst_rep * entry * es;
    uint32_t bits = static_cast<uint32_t>(at);
    if (op == EVK_ACL_RSUM || order == EVK_ORDER_ONLY_VALUE)
      store(out, d->dtype, acc);
    else if (order == EVK_ORDER_ONLY_INDEX)
      std::memcpy(out, &bits, es);
    else if (order == EVK_ORDER_VALUE_INDEX)
      store(out, d->dtype, acc), std::memcpy(out + es, &bits, es);
    else
      std::memcpy(out, &bits, es), store(out + es, d->dtype, acc);
  }
  schedule(I, kVec, kVecStartupCycles + 2.0 * repeat, {oa.slot}, {od.slot});
}

}  // namespace evk::runner::ascendc
