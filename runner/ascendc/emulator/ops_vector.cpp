// Vector compute: elementwise binary, scalar and unary operations, Duplicate, Cast, Compare and
// Select, and the reductions, each with its numerics and its charge on the vector pipe.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "emulator_impl.h"
#include "vector_table.h"

namespace evk::runner::ascendc {
using namespace emu;

namespace {
// The row of `op` run by the entry point `shape`; an unknown code ends the run.
const VectorApi& row_of(Emulator& e, int32_t op, Shape shape) {
  const VectorApi* r = vector_api(op);
  if (!r || r->shape != shape)
    e.fail("UNSUPPORTED_API",
           fmt::format("vector operation {} is not one this emulator runs: call the Ascend C "
                       "API (kernel_operator.h), not the emulator's entry points",
                       op));
  return *r;
}

uint32_t cycles_per_repeat(Cost c) {
  switch (c) {
    case Cost::kDivide:
      return kVecCyclesDiv;
    case Cost::kTranscendental:
      return kVecCyclesTranscendental;
    case Cost::kPolynomial:  // about a dozen instructions: three transcendental passes
      return 3 * kVecCyclesTranscendental;
    default:
      return kVecCyclesSimple;
  }
}

// The row's cost over `bytes` on the vector unit; a library API (kPolynomial) also pays the
// startup of its extra passes.
double row_cycles(const VectorApi& r, uint64_t bytes) {
  return vec_cycles(bytes, cycles_per_repeat(r.cost)) +
         (r.cost == Cost::kPolynomial ? 2.0 * kVecStartupCycles : 0);
}

// The checks every elementwise row shares: the destination's type is one the row takes, and
// the sources have the destination's type.
void need_row_dtypes(Emulator& e, const VectorApi& r, const evk_lt* d,
                     std::initializer_list<const evk_lt*> srcs, const char* what) {
  need_dtype(e, r.name, d->dtype, r.dtypes);
  for (const evk_lt* s : srcs)
    if (s->dtype != d->dtype)
      e.fail("DTYPE_UNSUPPORTED",
             fmt::format("{} needs the same element type for {}", r.name, what));
}
}  // namespace

void Emulator::binary(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* b, uint32_t n) {
  Impl& I = impl();
  const VectorApi& r = row_of(*this, op, Shape::kBinary);
  need_row_dtypes(*this, r, d, {a, b}, "all operands");
  Operand od = operand(*this, I, d, n, r.name, "destination");
  Operand oa = operand(*this, I, a, n, r.name, "first source");
  Operand ob = operand(*this, I, b, n, r.name, "second source");
  if (numerics_) r.numerics.for_dtype(d->dtype)(od.ptr, oa.ptr, ob.ptr, 0, n);
  schedule(I, kVec, row_cycles(r, n * dtype_bytes(d->dtype)), {oa.slot, ob.slot}, {od.slot});
}

void Emulator::scalar_op(int32_t op, const evk_lt* d, const evk_lt* a, double s, uint32_t n) {
  Impl& I = impl();
  const VectorApi& r = row_of(*this, op, Shape::kScalar);
  need_row_dtypes(*this, r, d, {a}, "both tensors");
  Operand od = operand(*this, I, d, n, r.name, "destination");
  Operand oa = operand(*this, I, a, n, r.name, "source");
  if (numerics_) r.numerics.for_dtype(d->dtype)(od.ptr, oa.ptr, nullptr, s, n);
  schedule(I, kVec, row_cycles(r, n * dtype_bytes(d->dtype)), {oa.slot}, {od.slot});
}

void Emulator::unary(int32_t op, const evk_lt* d, const evk_lt* a, uint32_t n) {
  Impl& I = impl();
  const VectorApi& r = row_of(*this, op, Shape::kUnary);
  need_row_dtypes(*this, r, d, {a}, "both tensors");
  Operand od = operand(*this, I, d, n, r.name, "destination");
  Operand oa = operand(*this, I, a, n, r.name, "source");
  if (numerics_) r.numerics.for_dtype(d->dtype)(od.ptr, oa.ptr, nullptr, 0, n);
  schedule(I, kVec, row_cycles(r, n * dtype_bytes(d->dtype)), {oa.slot}, {od.slot});
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
  const char* api = row_of(*this, op, Shape::kReduce).name;
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
