/* kernel_operator.h for evokernel's emulated Ascend 910B AI Core: the public Ascend C API
 * (namespace AscendC) as kernels written for a real 910B use it, over an emulator that owns
 * global and local memory and charges every call to a cycle model. The implementation is
 * evokernel's, not CANN's; names and semantics follow the public API documentation.
 * The emulated subset is listed in knowledge/ascendc/guide.md; what is not there does not
 * compile here. */
#ifndef EVOKERNEL_KERNEL_OPERATOR_H_
#define EVOKERNEL_KERNEL_OPERATOR_H_
#include <stdint.h>

#include "evokernel/ascendc_emu.h"
#include "evokernel/kernel_abi.h"

#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR uint8_t*
typedef _Float16 half;
typedef void* aclrtStream;

namespace AscendC {

namespace evk_detail {
template <class T> struct Dtype;
template <> struct Dtype<float> { static constexpr int32_t code = EVK_F32; };
template <> struct Dtype<int32_t> { static constexpr int32_t code = EVK_I32; };
template <> struct Dtype<uint8_t> { static constexpr int32_t code = EVK_U8; };
template <> struct Dtype<half> { static constexpr int32_t code = EVK_F16; };
// The tiling key of the launch in progress (evokernel/cann_op.h sets it; TILING_KEY_IS reads).
inline uint64_t& TilingKeyRef() {
  static uint64_t key = 0;
  return key;
}
// GET_TILING_DATA: the tiling struct read from GM with scalar loads, 4 bytes at a time.
inline void LoadTiling(void* dst, uint32_t bytes, const uint8_t* tiling) {
  evk_gt words = {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(tiling)), 0, EVK_I32};
  evk_gt tail = {words.addr, 0, EVK_U8};
  uint8_t* d = static_cast<uint8_t*>(dst);
  uint32_t i = 0;
  for (; i + 4 <= bytes; i += 4) {
    int32_t w = static_cast<int32_t>(evk_acl_gm_get(&words, i / 4));
    __builtin_memcpy(d + i, &w, 4);
  }
  for (; i < bytes; ++i) d[i] = static_cast<uint8_t>(evk_acl_gm_get(&tail, i));
}
}  // namespace evk_detail

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t BLOCK_CUBE = 16;

// The enumerations take the emulator's codes (evokernel/ascendc_emu.h).
enum class TPosition : int32_t {
  GM = EVK_POS_GM, A1 = EVK_POS_A1, A2 = EVK_POS_A2, B1 = EVK_POS_B1, B2 = EVK_POS_B2,
  C1 = EVK_POS_C1, C2 = EVK_POS_C2, CO1 = EVK_POS_CO1, CO2 = EVK_POS_CO2,
  VECIN = EVK_POS_VECIN, VECOUT = EVK_POS_VECOUT, VECCALC = EVK_POS_VECCALC
};
using QuePosition = TPosition;
enum class CMPMODE : int32_t {
  LT = EVK_CMP_LT, GT = EVK_CMP_GT, EQ = EVK_CMP_EQ, LE = EVK_CMP_LE, GE = EVK_CMP_GE, NE = EVK_CMP_NE
};
enum class SELMODE : int32_t {
  VSEL_CMPMASK_SPR = EVK_SEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE = EVK_SEL_TENSOR_SCALAR,
  VSEL_TENSOR_TENSOR_MODE = EVK_SEL_TENSOR_TENSOR
};
enum class RoundMode : int32_t {
  CAST_NONE = EVK_ROUND_NONE, CAST_RINT = EVK_ROUND_RINT, CAST_FLOOR = EVK_ROUND_FLOOR,
  CAST_CEIL = EVK_ROUND_CEIL, CAST_ROUND = EVK_ROUND_ROUND, CAST_TRUNC = EVK_ROUND_TRUNC,
  CAST_ODD = EVK_ROUND_ODD
};
enum class ReduceOrder : int32_t {
  ORDER_VALUE_INDEX = EVK_ORDER_VALUE_INDEX, ORDER_INDEX_VALUE = EVK_ORDER_INDEX_VALUE,
  ORDER_ONLY_VALUE = EVK_ORDER_ONLY_VALUE, ORDER_ONLY_INDEX = EVK_ORDER_ONLY_INDEX
};
enum pipe_t : int32_t {
  PIPE_S = EVK_PIPE_S, PIPE_V = EVK_PIPE_V, PIPE_M = EVK_PIPE_M, PIPE_MTE1 = EVK_PIPE_MTE1,
  PIPE_MTE2 = EVK_PIPE_MTE2, PIPE_MTE3 = EVK_PIPE_MTE3, PIPE_ALL = EVK_PIPE_ALL
};

__aicore__ inline int64_t GetBlockIdx() { return evk_acl_block_idx(); }
__aicore__ inline int64_t GetBlockNum() { return evk_acl_block_num(); }
__aicore__ inline GM_ADDR GetSysWorkSpacePtr() {
  return reinterpret_cast<GM_ADDR>(static_cast<uintptr_t>(evk_acl_workspace()));
}
template <pipe_t P>
__aicore__ inline void PipeBarrier() { evk_acl_barrier(static_cast<int32_t>(P)); }
// The workspace argument of a CANN kernel: the system part (16 MiB on an Atlas A2,
// GetLibApiWorkSpaceSize() on the host) first, the user's part after it.
__aicore__ inline void SetSysWorkspace(GM_ADDR workspace) { (void)workspace; }
__aicore__ inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
  return workspace == nullptr ? nullptr : workspace + 16 * 1024 * 1024;
}

template <class T>
class GlobalTensor {
 public:
  __aicore__ inline GlobalTensor() { t_ = {0, 0, evk_detail::Dtype<T>::code}; }
  __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize = 0) {
    t_.addr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buffer));
    t_.len = bufferSize;
    evk_acl_gm_check(&t_);
  }
  __aicore__ inline GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor g = *this;
    g.t_.addr += offset * sizeof(T);
    g.t_.len = t_.len == 0 ? 0 : (offset < t_.len ? t_.len - offset : UINT64_MAX);
    evk_acl_gm_check(&g.t_);
    return g;
  }
  __aicore__ inline T GetValue(uint64_t i) const { return static_cast<T>(evk_acl_gm_get(&t_, i)); }
  __aicore__ inline void SetValue(uint64_t i, T v) { evk_acl_gm_set(&t_, i, static_cast<double>(v)); }
  __aicore__ inline uint64_t GetSize() const { return t_.len; }
  evk_gt t_;
};

template <class T>
class LocalTensor {
 public:
  __aicore__ inline LocalTensor() { t_ = {0xFFFFFFFFu, 0, 0, evk_detail::Dtype<T>::code}; }
  __aicore__ inline T GetValue(uint32_t i) const { return static_cast<T>(evk_acl_get(&t_, i)); }
  __aicore__ inline void SetValue(uint32_t i, T v) const { evk_acl_set(&t_, i, static_cast<double>(v)); }
  // t(i): one element through the scalar unit, read (GetValue) or written (SetValue).
  struct Ref {
    const LocalTensor* t;
    uint32_t i;
    __aicore__ inline operator T() const { return t->GetValue(i); }
    __aicore__ inline Ref& operator=(T v) { t->SetValue(i, v); return *this; }
    __aicore__ inline Ref& operator=(const Ref& o) { t->SetValue(i, static_cast<T>(o)); return *this; }
  };
  __aicore__ inline Ref operator()(uint32_t i) const { return Ref{this, i}; }
  __aicore__ inline LocalTensor operator[](uint32_t offset) const {
    evk_acl_check_sub(&t_, offset);
    LocalTensor r = *this;
    r.t_.off += offset;
    r.t_.len -= offset;
    return r;
  }
  __aicore__ inline uint32_t GetSize() const { return t_.len; }
  template <class U>
  __aicore__ inline LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> r;
    r.t_ = {t_.slot, static_cast<uint32_t>(t_.off * sizeof(T) / sizeof(U)),
            static_cast<uint32_t>(t_.len * sizeof(T) / sizeof(U)), evk_detail::Dtype<U>::code};
    return r;
  }
  evk_lt t_;
};

template <TPosition pos, int32_t depth>
class TQue {
 public:
  static constexpr TPosition kPos = pos;
  static constexpr int32_t kDepth = depth;
  template <class T>
  __aicore__ inline LocalTensor<T> AllocTensor() {
    LocalTensor<T> t;
    evk_acl_alloc(id_, evk_detail::Dtype<T>::code, &t.t_);
    return t;
  }
  template <class T>
  __aicore__ inline void EnQue(const LocalTensor<T>& t) { evk_acl_enque(id_, &t.t_); }
  template <class T>
  __aicore__ inline LocalTensor<T> DeQue() {
    LocalTensor<T> t;
    evk_acl_deque(id_, evk_detail::Dtype<T>::code, &t.t_);
    return t;
  }
  template <class T>
  __aicore__ inline void FreeTensor(LocalTensor<T>& t) { evk_acl_free(id_, &t.t_); }
  uint32_t id_ = 0;
};
template <TPosition src, TPosition dst, int32_t depth>
class TQueBind : public TQue<src, depth> {};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  template <class T>
  __aicore__ inline LocalTensor<T> Get() { return Get<T>(0); }
  template <class T>
  __aicore__ inline LocalTensor<T> Get(uint32_t count) {
    LocalTensor<T> t;
    evk_acl_tbuf_get(id_, evk_detail::Dtype<T>::code, count, &t.t_);
    return t;
  }
  // A TBuf's tensor is its whole buffer for the kernel's lifetime: nothing to release.
  template <class T>
  __aicore__ inline void FreeTensor(LocalTensor<T>&) {}
  uint32_t id_ = 0;
};

class TPipe {
 public:
  template <TPosition pos, int32_t depth>
  __aicore__ inline void InitBuffer(TQue<pos, depth>& q, uint32_t num, uint32_t len) {
    q.id_ = evk_acl_init_queue(static_cast<int32_t>(pos), depth, num, len);
  }
  template <TPosition pos>
  __aicore__ inline void InitBuffer(TBuf<pos>& b, uint32_t len) {
    b.id_ = evk_acl_init_tbuf(static_cast<int32_t>(pos), len);
  }
  __aicore__ inline void Destroy() {}
  __aicore__ inline void Reset() {}
};

// ---- data movement ----
struct DataCopyParams {
  uint16_t blockCount = 1, blockLen = 0, srcStride = 0, dstStride = 0;
  __aicore__ DataCopyParams() {}
  __aicore__ DataCopyParams(uint16_t count, uint16_t len, uint16_t srcGap, uint16_t dstGap)
      : blockCount(count), blockLen(len), srcStride(srcGap), dstStride(dstGap) {}
};
struct DataCopyExtParams {
  uint16_t blockCount = 1;
  uint32_t blockLen = 0, srcStride = 0, dstStride = 0, rsv = 0;
  __aicore__ DataCopyExtParams() {}
  __aicore__ DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcGap, uint32_t dstGap,
                               uint32_t reserved)
      : blockCount(count), blockLen(len), srcStride(srcGap), dstStride(dstGap), rsv(reserved) {}
};
template <class T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0, rightPadding = 0;
  T paddingValue = 0;
  __aicore__ DataCopyPadExtParams() {}
  __aicore__ DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
      : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

template <class T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  evk_acl_copy(EVK_COPY_GM_TO_LOCAL, &dst.t_, nullptr, &src.t_, count);
}
template <class T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  evk_acl_copy(EVK_COPY_LOCAL_TO_GM, &src.t_, nullptr, &dst.t_, count);
}
template <class T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  evk_acl_copy(EVK_COPY_LOCAL_TO_LOCAL, &dst.t_, &src.t_, nullptr, count);
}
template <class T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  evk_acl_copy_blocks(EVK_COPY_GM_TO_LOCAL, &dst.t_, &src.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}
template <class T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  evk_acl_copy_blocks(EVK_COPY_LOCAL_TO_GM, &src.t_, &dst.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}
template <class T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
  evk_acl_copy_pad(EVK_COPY_GM_TO_LOCAL, &dst.t_, &src.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                   pad.isPad, pad.leftPadding, pad.rightPadding, static_cast<double>(pad.paddingValue));
}
template <class T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyExtParams& p) {
  evk_acl_copy_pad(EVK_COPY_LOCAL_TO_GM, &src.t_, &dst.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0, 0, 0, 0);
}

// ---- vector compute (count-based forms) ----
#define EVK_ASCENDC_BINARY(Name, Op)                                                          \
  template <class T>                                                                          \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0,          \
                              const LocalTensor<T>& src1, const int32_t& count) {             \
    evk_acl_binary(Op, &dst.t_, &src0.t_, &src1.t_, static_cast<uint32_t>(count));            \
  }
EVK_ASCENDC_BINARY(Add, EVK_ACL_ADD)
EVK_ASCENDC_BINARY(Sub, EVK_ACL_SUB)
EVK_ASCENDC_BINARY(Mul, EVK_ACL_MUL)
EVK_ASCENDC_BINARY(Div, EVK_ACL_DIV)
EVK_ASCENDC_BINARY(Max, EVK_ACL_MAX)
EVK_ASCENDC_BINARY(Min, EVK_ACL_MIN)
#undef EVK_ASCENDC_BINARY

#define EVK_ASCENDC_SCALAR(Name, Op)                                                          \
  template <class T, class U>                                                                 \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,           \
                              const U& scalar, const int32_t& count) {                        \
    evk_acl_scalar(Op, &dst.t_, &src.t_, static_cast<double>(static_cast<T>(scalar)),         \
                   static_cast<uint32_t>(count));                                             \
  }
EVK_ASCENDC_SCALAR(Adds, EVK_ACL_ADDS)
EVK_ASCENDC_SCALAR(Muls, EVK_ACL_MULS)
EVK_ASCENDC_SCALAR(Maxs, EVK_ACL_MAXS)
EVK_ASCENDC_SCALAR(Mins, EVK_ACL_MINS)
EVK_ASCENDC_SCALAR(ShiftLeft, EVK_ACL_SHLS)
EVK_ASCENDC_SCALAR(ShiftRight, EVK_ACL_SHRS)
#undef EVK_ASCENDC_SCALAR

#define EVK_ASCENDC_UNARY(Name, Op)                                                           \
  template <class T>                                                                          \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,           \
                              const int32_t& count) {                                         \
    evk_acl_unary(Op, &dst.t_, &src.t_, static_cast<uint32_t>(count));                        \
  }
EVK_ASCENDC_UNARY(Exp, EVK_ACL_EXP)
EVK_ASCENDC_UNARY(Ln, EVK_ACL_LN)
EVK_ASCENDC_UNARY(Abs, EVK_ACL_ABS)
EVK_ASCENDC_UNARY(Sqrt, EVK_ACL_SQRT)
EVK_ASCENDC_UNARY(Rsqrt, EVK_ACL_RSQRT)
EVK_ASCENDC_UNARY(Reciprocal, EVK_ACL_RECIPROCAL)
EVK_ASCENDC_UNARY(Relu, EVK_ACL_RELU)
EVK_ASCENDC_UNARY(Log, EVK_ACL_LN)
EVK_ASCENDC_UNARY(Erf, EVK_ACL_ERF)
EVK_ASCENDC_UNARY(Sin, EVK_ACL_SIN)
EVK_ASCENDC_UNARY(Cos, EVK_ACL_COS)
#undef EVK_ASCENDC_UNARY

template <class T, class U>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const U& scalar, const int32_t& count) {
  evk_acl_duplicate(&dst.t_, static_cast<double>(static_cast<T>(scalar)), static_cast<uint32_t>(count));
}
template <class D, class S>
__aicore__ inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& mode,
                            const uint32_t count) {
  evk_acl_cast(&dst.t_, &src.t_, static_cast<int32_t>(mode), count);
}
template <class T>
__aicore__ inline void Compare(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& src0,
                               const LocalTensor<T>& src1, CMPMODE mode, uint32_t count) {
  evk_acl_compare(&dst.t_, &src0.t_, &src1.t_, 0, 0, static_cast<int32_t>(mode), count);
}
template <class T, class U>
__aicore__ inline void CompareScalar(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& src0,
                                     const U scalar, CMPMODE mode, uint32_t count) {
  evk_acl_compare(&dst.t_, &src0.t_, nullptr, static_cast<double>(static_cast<T>(scalar)), 1,
                  static_cast<int32_t>(mode), count);
}
template <class T>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& mask,
                              const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE mode,
                              uint32_t count) {
  evk_acl_select(&dst.t_, &mask.t_, &src0.t_, &src1.t_, 0, static_cast<int32_t>(mode), count);
}
template <class T, class U>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& mask,
                              const LocalTensor<T>& src0, U scalar, SELMODE mode, uint32_t count) {
  evk_acl_select(&dst.t_, &mask.t_, &src0.t_, nullptr, static_cast<double>(static_cast<T>(scalar)),
                 static_cast<int32_t>(mode), count);
}
template <class T>
__aicore__ inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                 const LocalTensor<T>& work, const int32_t count) {
  evk_acl_reduce(EVK_ACL_RSUM, &dst.t_, &src.t_, &work.t_, static_cast<uint32_t>(count), 0);
}
template <class T>
__aicore__ inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                 const LocalTensor<T>& work, const int32_t count, bool calIndex = false) {
  evk_acl_reduce(EVK_ACL_RMAX, &dst.t_, &src.t_, &work.t_, static_cast<uint32_t>(count), calIndex);
}
template <class T>
__aicore__ inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                 const LocalTensor<T>& work, const int32_t count, bool calIndex = false) {
  evk_acl_reduce(EVK_ACL_RMIN, &dst.t_, &src.t_, &work.t_, static_cast<uint32_t>(count), calIndex);
}
template <class T>
__aicore__ inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                                      const int32_t repeatTimes, const int32_t dstRepStride,
                                      const int32_t srcBlkStride, const int32_t srcRepStride) {
  evk_acl_whole_reduce(EVK_ACL_RSUM, &dst.t_, &src.t_, mask, repeatTimes, dstRepStride, srcBlkStride,
                       srcRepStride, static_cast<int32_t>(ReduceOrder::ORDER_ONLY_VALUE));
}
template <class T>
__aicore__ inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                                      const int32_t repeatTimes, const int32_t dstRepStride,
                                      const int32_t srcBlkStride, const int32_t srcRepStride,
                                      ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  evk_acl_whole_reduce(EVK_ACL_RMAX, &dst.t_, &src.t_, mask, repeatTimes, dstRepStride, srcBlkStride,
                       srcRepStride, static_cast<int32_t>(order));
}
template <class T>
__aicore__ inline void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                                      const int32_t repeatTimes, const int32_t dstRepStride,
                                      const int32_t srcBlkStride, const int32_t srcRepStride,
                                      ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  evk_acl_whole_reduce(EVK_ACL_RMIN, &dst.t_, &src.t_, mask, repeatTimes, dstRepStride, srcBlkStride,
                       srcRepStride, static_cast<int32_t>(order));
}

// ---- high-level math, composed from the vector instructions above (as the library's are:
// several instructions each, charged as such). dst and src must be different tensors; the
// forms with a sharedTmpBuffer accept it and need no more.
template <class T>
__aicore__ inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n) {
  Muls(dst, src, static_cast<T>(-1), static_cast<int32_t>(n));
  Exp(dst, dst, static_cast<int32_t>(n));
  Adds(dst, dst, static_cast<T>(1), static_cast<int32_t>(n));
  Reciprocal(dst, dst, static_cast<int32_t>(n));
}
template <class T>
__aicore__ inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                               const LocalTensor<uint8_t>&, uint32_t n) {
  Sigmoid(dst, src, n);
}
// tanh(x) = 1 - 2 / (exp(2x) + 1): exact at both saturations.
template <class T>
__aicore__ inline void Tanh(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n) {
  int32_t c = static_cast<int32_t>(n);
  Muls(dst, src, static_cast<T>(2), c);
  Exp(dst, dst, c);
  Adds(dst, dst, static_cast<T>(1), c);
  Reciprocal(dst, dst, c);
  Muls(dst, dst, static_cast<T>(-2), c);
  Adds(dst, dst, static_cast<T>(1), c);
}
template <class T>
__aicore__ inline void Tanh(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                            const LocalTensor<uint8_t>&, uint32_t n) {
  Tanh(dst, src, n);
}
// Gelu, the tanh approximation the library's Gelu computes:
// x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3))).
template <class T>
__aicore__ inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n) {
  int32_t c = static_cast<int32_t>(n);
  Mul(dst, src, src, c);
  Mul(dst, dst, src, c);
  Muls(dst, dst, static_cast<T>(0.044715f), c);
  Add(dst, dst, src, c);
  Muls(dst, dst, static_cast<T>(-1.5957691216057308f), c);
  Exp(dst, dst, c);
  Adds(dst, dst, static_cast<T>(1), c);
  Div(dst, src, dst, c);
}
template <class T>
__aicore__ inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                            const LocalTensor<uint8_t>&, uint32_t n) {
  Gelu(dst, src, n);
}
template <class T>
__aicore__ inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n) {
  Gelu(dst, src, n);
}
// LeakyRelu(dst, src, slope, n): max(x, slope x) for a slope in [0, 1], min(x, slope x) above.
template <class T, class U>
__aicore__ inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                 const U& slope, const int32_t& n) {
  Muls(dst, src, static_cast<T>(slope), n);
  if (static_cast<float>(slope) <= 1.0f)
    Max(dst, dst, src, n);
  else
    Min(dst, dst, src, n);
}
template <class T>
__aicore__ inline void Log2(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n) {
  Ln(dst, src, static_cast<int32_t>(n));
  Muls(dst, dst, static_cast<T>(1.4426950408889634f), static_cast<int32_t>(n));
}
template <class T>
__aicore__ inline void Log10(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n) {
  Ln(dst, src, static_cast<int32_t>(n));
  Muls(dst, dst, static_cast<T>(0.4342944819032518f), static_cast<int32_t>(n));
}
template <class T>
__aicore__ inline void Erf(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LocalTensor<uint8_t>&, uint32_t n) {
  Erf(dst, src, static_cast<int32_t>(n));
}
template <class T>
__aicore__ inline void Sin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LocalTensor<uint8_t>&, uint32_t n) {
  Sin(dst, src, static_cast<int32_t>(n));
}
template <class T>
__aicore__ inline void Cos(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LocalTensor<uint8_t>&, uint32_t n) {
  Cos(dst, src, static_cast<int32_t>(n));
}

}  // namespace AscendC

namespace optiling {}  // where a CANN host tiling lives; GET_TILING_DATA looks there too

/* The CANN kernel conventions. A kernel's entry is
 *   extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
 * and reads its tiling with GET_TILING_DATA(t, tiling) (the class REGISTER_TILING_DATA_CLASS
 * named, register/tilingdata_base.h) or GET_TILING_DATA_WITH_STRUCT(Struct, t, tiling). */
#define GET_TILING_DATA(var, tiling)                                               \
  auto var = [&]() {                                                               \
    using namespace ::optiling;                                                    \
    EvkRegisteredTilingData v_;                                                    \
    ::AscendC::evk_detail::LoadTiling(&v_, sizeof v_, (const uint8_t*)(tiling));  \
    return v_;                                                                     \
  }()
#define GET_TILING_DATA_WITH_STRUCT(struct_type, var, tiling) \
  struct_type var;                                            \
  ::AscendC::evk_detail::LoadTiling(&var, sizeof var, (const uint8_t*)(tiling))
#define TILING_KEY_IS(k) (::AscendC::evk_detail::TilingKeyRef() == static_cast<uint64_t>(k))
#define KERNEL_TASK_TYPE_DEFAULT(type) (void)0
#define KERNEL_TASK_TYPE(key, type) (void)0
enum KernelMetaType { KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIC_1_1,
                      KERNEL_TYPE_MIX_AIC_1_2 };
/* One emulated block plays a block's cube core and its vector cores alike. */
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (true)
#define ASCEND_IS_NOT_AIV (false)
#define ASCEND_IS_NOT_AIC (false)

/* The host-side launch: ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...) runs `kernel`
 * on blockDim blocks of the emulated AI Cores (in waves of 48 vector or 24 cube cores) and
 * returns 0. */
namespace evk_ascendc_launch {
template <class F>
struct Launch {
  F fn;
  const char* name;
  template <class... A>
  uint32_t operator()(uint32_t blockDim, aclrtStream, A... args) const {
    evk_acl_launch_begin(blockDim, name);
    while (evk_acl_next_block() >= 0) fn(args...);
    evk_acl_launch_end();
    return 0;
  }
};
}  // namespace evk_ascendc_launch
#define ACLRT_LAUNCH_KERNEL(kernel) \
  (::evk_ascendc_launch::Launch<decltype(&kernel)>{&kernel, #kernel})

/* The high-level APIs a kernel reaches through this header, as on the real toolchain. */
#include "lib/activation/softmax.h"
#include "lib/normalization/layernorm.h"

#endif /* EVOKERNEL_KERNEL_OPERATOR_H_ */
