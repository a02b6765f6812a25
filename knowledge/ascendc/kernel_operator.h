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
}  // namespace evk_detail

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t BLOCK_CUBE = 16;

enum class TPosition : int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC };
using QuePosition = TPosition;
enum class CMPMODE : int32_t { LT, GT, EQ, LE, GE, NE };
enum class SELMODE : int32_t { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class RoundMode : int32_t {
  CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD
};
enum class ReduceOrder : int32_t { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum pipe_t : int32_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };

__aicore__ inline int64_t GetBlockIdx() { return evk_acl_block_idx(); }
__aicore__ inline int64_t GetBlockNum() { return evk_acl_block_num(); }
__aicore__ inline GM_ADDR GetSysWorkSpacePtr() {
  return reinterpret_cast<GM_ADDR>(static_cast<uintptr_t>(evk_acl_workspace()));
}
template <pipe_t P>
__aicore__ inline void PipeBarrier() { evk_acl_barrier(static_cast<int32_t>(P)); }

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
  evk_acl_copy(0, &dst.t_, nullptr, &src.t_, count);
}
template <class T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  evk_acl_copy(1, &src.t_, nullptr, &dst.t_, count);
}
template <class T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  evk_acl_copy(2, &dst.t_, &src.t_, nullptr, count);
}
template <class T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  evk_acl_copy_blocks(0, &dst.t_, &src.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}
template <class T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  evk_acl_copy_blocks(1, &src.t_, &dst.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}
template <class T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
  evk_acl_copy_pad(0, &dst.t_, &src.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                   pad.isPad, pad.leftPadding, pad.rightPadding, static_cast<double>(pad.paddingValue));
}
template <class T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyExtParams& p) {
  evk_acl_copy_pad(1, &src.t_, &dst.t_, p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0, 0, 0, 0);
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

}  // namespace AscendC

/* The host-side launch: ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...) runs `kernel`
 * on blockDim blocks of the emulated AI Cores (in waves of 24) and returns 0. */
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

#endif /* EVOKERNEL_KERNEL_OPERATOR_H_ */
