/* The emulated AI Core's interface: its entry points (runner/ascendc/api.cpp defines them and
 * evk-runner-ascendc exports them; knowledge/ascendc/kernel_operator.h calls them) and the
 * codes both sides use for Ascend C's enumerations. A kernel never calls these itself: the
 * static rules reject the names, and the Ascend C API in kernel_operator.h is the only way in.
 * Every call is checked by the emulator and charged to the cycle model; a misuse ends the run
 * with a named category such as [UB_OVERFLOW] (knowledge/ascendc/guide.md lists them all).
 *
 * This file is abi/evokernel/ascendc_emu.h; the build copies it into knowledge/ascendc/
 * evokernel/ (the test abi_copies fails when the copy differs): edit it here. */
#ifndef EVOKERNEL_ASCENDC_EMU_H_
#define EVOKERNEL_ASCENDC_EMU_H_
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A LocalTensor: a slot of a queue or buffer in the core's local memory, an element offset
 * into it and an element count. No address: local memory is the emulator's. */
typedef struct {
  uint32_t slot;
  uint32_t off;
  uint32_t len;
  int32_t dtype;
} evk_lt;

/* A GlobalTensor: a global-memory address (a GM_ADDR the harness gave) and an element count
 * (0: up to the end of the tensor the address lies in). */
typedef struct {
  uint64_t addr;
  uint64_t len;
  int32_t dtype;
} evk_gt;

typedef struct {
  evk_gt a, b, bias, c;
  int32_t has_bias, trans_a, trans_b;
  int32_t m, n, k;              /* this call's sub-matrix (singleCore or tail) */
  int32_t lda, ldb, ldc;        /* row strides in elements */
  int32_t base_m, base_n, base_k;
} evk_mm;

enum {
  EVK_ACL_ADD, EVK_ACL_SUB, EVK_ACL_MUL, EVK_ACL_DIV, EVK_ACL_MAX, EVK_ACL_MIN,
  EVK_ACL_ADDS, EVK_ACL_MULS, EVK_ACL_MAXS, EVK_ACL_MINS,
  EVK_ACL_EXP, EVK_ACL_LN, EVK_ACL_ABS, EVK_ACL_SQRT, EVK_ACL_RSQRT, EVK_ACL_RECIPROCAL,
  EVK_ACL_RELU,
  EVK_ACL_RSUM, EVK_ACL_RMAX, EVK_ACL_RMIN,
  EVK_ACL_ERF, EVK_ACL_SIN, EVK_ACL_COS, /* unary */
  EVK_ACL_SHLS, EVK_ACL_SHRS             /* scalar: ShiftLeft / ShiftRight on integers */
};

/* Ascend C's enumerations as kernel_operator.h defines them (its enums take these values) and
 * as the emulator reads them. */
enum { /* TPosition */
  EVK_POS_GM, EVK_POS_A1, EVK_POS_A2, EVK_POS_B1, EVK_POS_B2, EVK_POS_C1, EVK_POS_C2,
  EVK_POS_CO1, EVK_POS_CO2, EVK_POS_VECIN, EVK_POS_VECOUT, EVK_POS_VECCALC, EVK_POS_COUNT
};
enum { /* CMPMODE */
  EVK_CMP_LT, EVK_CMP_GT, EVK_CMP_EQ, EVK_CMP_LE, EVK_CMP_GE, EVK_CMP_NE
};
enum { /* SELMODE */
  EVK_SEL_CMPMASK_SPR, EVK_SEL_TENSOR_SCALAR, EVK_SEL_TENSOR_TENSOR
};
enum { /* RoundMode */
  EVK_ROUND_NONE, EVK_ROUND_RINT, EVK_ROUND_FLOOR, EVK_ROUND_CEIL, EVK_ROUND_ROUND,
  EVK_ROUND_TRUNC, EVK_ROUND_ODD
};
enum { /* ReduceOrder */
  EVK_ORDER_VALUE_INDEX, EVK_ORDER_INDEX_VALUE, EVK_ORDER_ONLY_VALUE, EVK_ORDER_ONLY_INDEX
};
enum { /* pipe_t */
  EVK_PIPE_S, EVK_PIPE_V, EVK_PIPE_M, EVK_PIPE_MTE1, EVK_PIPE_MTE2, EVK_PIPE_MTE3, EVK_PIPE_ALL
};
enum { /* the direction of a copy (evk_acl_copy and the copies below) */
  EVK_COPY_GM_TO_LOCAL, EVK_COPY_LOCAL_TO_GM, EVK_COPY_LOCAL_TO_LOCAL
};

uint32_t evk_acl_block_idx(void);
uint32_t evk_acl_block_num(void);
void evk_acl_launch_begin(uint32_t block_dim, const char* kernel);
int32_t evk_acl_next_block(void); /* the next block to run, -1 when all ran */
void evk_acl_launch_end(void);
uint64_t evk_acl_workspace(void);

uint32_t evk_acl_init_queue(int32_t pos, int32_t depth, uint32_t num, uint32_t len_bytes);
uint32_t evk_acl_init_tbuf(int32_t pos, uint32_t len_bytes);
void evk_acl_alloc(uint32_t que, int32_t dtype, evk_lt* out);
void evk_acl_enque(uint32_t que, const evk_lt* t);
void evk_acl_deque(uint32_t que, int32_t dtype, evk_lt* out);
void evk_acl_free(uint32_t que, const evk_lt* t);
void evk_acl_tbuf_get(uint32_t buf, int32_t dtype, uint32_t count, evk_lt* out);
void evk_acl_check_sub(const evk_lt* t, uint32_t off); /* tensor[off] within bounds */
void evk_acl_gm_check(const evk_gt* t);                 /* SetGlobalBuffer */

/* dir: EVK_COPY_* */
void evk_acl_copy(int32_t dir, const evk_lt* lt, const evk_lt* lt2, const evk_gt* gt,
                  uint32_t count);
/* strided copy in 32-byte blocks (DataCopyParams) */
void evk_acl_copy_blocks(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                         uint32_t block_len, uint32_t src_stride, uint32_t dst_stride);
/* DataCopyPad: blocks of block_bytes; GM strides in bytes, local strides in 32-byte blocks */
void evk_acl_copy_pad(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                      uint32_t block_bytes, uint32_t src_stride, uint32_t dst_stride,
                      int32_t pad, uint32_t left, uint32_t right, double pad_value);

void evk_acl_binary(int32_t op, const evk_lt* dst, const evk_lt* a, const evk_lt* b, uint32_t n);
void evk_acl_scalar(int32_t op, const evk_lt* dst, const evk_lt* a, double s, uint32_t n);
void evk_acl_unary(int32_t op, const evk_lt* dst, const evk_lt* a, uint32_t n);
void evk_acl_duplicate(const evk_lt* dst, double s, uint32_t n);
void evk_acl_cast(const evk_lt* dst, const evk_lt* a, int32_t round, uint32_t n);
void evk_acl_compare(const evk_lt* mask, const evk_lt* a, const evk_lt* b, double s,
                     int32_t with_scalar, int32_t mode, uint32_t n);
void evk_acl_select(const evk_lt* dst, const evk_lt* mask, const evk_lt* a, const evk_lt* b,
                    double s, int32_t mode, uint32_t n);
void evk_acl_reduce(int32_t op, const evk_lt* dst, const evk_lt* a, const evk_lt* work,
                    uint32_t n, int32_t index);
void evk_acl_whole_reduce(int32_t op, const evk_lt* dst, const evk_lt* a, int32_t mask,
                          int32_t repeat, int32_t dst_rep, int32_t src_blk, int32_t src_rep,
                          int32_t order);

double evk_acl_get(const evk_lt* t, uint32_t i);
void evk_acl_set(const evk_lt* t, uint32_t i, double v);
double evk_acl_gm_get(const evk_gt* t, uint64_t i);
void evk_acl_gm_set(const evk_gt* t, uint64_t i, double v);

void evk_acl_matmul(const evk_mm* mm);

/* Host-side device memory (acl/acl.h: aclrtMalloc, aclrtMemcpy host to device, aclrtFree),
 * outside kernels only: a buffer for the tiling data or a table the host computes from the
 * shapes. The host may write only buffers it allocated; it can never read device memory. */
uint64_t evk_acl_dev_malloc(uint64_t bytes);
void evk_acl_dev_upload(uint64_t addr, const void* src, uint64_t bytes);
void evk_acl_dev_free(uint64_t addr);
void evk_acl_barrier(int32_t pipe); /* PipeBarrier: pipes wait for each other */

#ifdef __cplusplus
}
#endif
#endif /* EVOKERNEL_ASCENDC_EMU_H_ */
