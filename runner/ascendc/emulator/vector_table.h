// The elementwise vector APIs as a table: one row per API (evk_acl_binary, evk_acl_scalar,
// evk_acl_unary and the reductions' names), each with its Ascend C name, the element types it
// takes, its cost class and its numerics. ops_vector.cpp runs every row the same way: the
// shared checks (checks.cpp), the row's numerics over the operands, the row's cost on the
// vector pipe. Adding an elementwise API is one EVK_ACL_* code (abi/evokernel/ascendc_emu.h),
// its wrapper in kernel_operator.h, and one row plus its numerics in vector_table.cpp
// (docs/ascendc-emulator.md).
#pragma once
#include <cstdint>

#include "evokernel/ascendc_emu.h"
#include "evokernel/kernel_abi.h"

namespace evk::runner::ascendc::emu {

// Which entry point runs the row, and so its operands.
enum class Shape {
  kBinary,  // dst = f(src0, src1)         evk_acl_binary
  kScalar,  // dst = f(src, scalar)        evk_acl_scalar
  kUnary,   // dst = f(src)                evk_acl_unary
  kReduce,  // ReduceSum/Max/Min, WholeReduce* (their own code in ops_vector.cpp: name only)
};

// What a row costs on the vector unit, per 256-byte repeat (npu_constants.h).
enum class Cost {
  kSimple,          // one instruction: add, max, abs, relu, shifts, ...
  kDivide,          // the divider
  kTranscendental,  // one transcendental instruction: exp, ln, sqrt, rsqrt, reciprocal
  kPolynomial,      // a library API: range reduction and a polynomial (erf, sin, cos)
};

// Element-type sets, as bits (1 << EVK_F32 ...).
constexpr uint32_t dtype_bit(int32_t d) {
  return 1u << d;
}
constexpr uint32_t kFloats = dtype_bit(EVK_F16) | dtype_bit(EVK_F32);
constexpr uint32_t kFloatsInt = kFloats | dtype_bit(EVK_I32);
constexpr uint32_t kInt = dtype_bit(EVK_I32);

// A row's numerics over n elements of one element type: d = f(a, b) (binary), f(a, s)
// (scalar) or f(a) (unary); null for a type the row does not take.
using Loop = void (*)(uint8_t* d, const uint8_t* a, const uint8_t* b, double s, uint32_t n);
struct Numerics {
  Loop f32 = nullptr, f16 = nullptr, i32 = nullptr;
  Loop for_dtype(int32_t d) const {
    return d == EVK_F32 ? f32 : d == EVK_F16 ? f16 : d == EVK_I32 ? i32 : nullptr;
  }
};

struct VectorApi {
  int32_t op;        // EVK_ACL_*
  const char* name;  // the Ascend C API, in messages
  Shape shape;
  uint32_t dtypes;  // the element types it takes (a Numerics loop for each)
  Cost cost;
  Numerics numerics;
};

// The row of `op`; nullptr when no row has it.
const VectorApi* vector_api(int32_t op);

}  // namespace evk::runner::ascendc::emu
