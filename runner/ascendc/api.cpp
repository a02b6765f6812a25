// The C entry points of knowledge/ascendc/evokernel/ascendc_emu.h, exported by
// evk-runner-ascendc (ENABLE_EXPORTS) so that a candidate's library binds to them at dlopen.
#include "emulator.h"

using evk::runner::ascendc::Emulator;

namespace {
Emulator& E() {
  return Emulator::get();
}
}  // namespace

extern "C" {
uint32_t evk_acl_block_idx(void) {
  return E().block_idx();
}
uint32_t evk_acl_block_num(void) {
  return E().block_num();
}
void evk_acl_launch_begin(uint32_t d, const char* k) {
  E().launch_begin(d, k ? k : "kernel");
}
int32_t evk_acl_next_block(void) {
  return E().next_block();
}
void evk_acl_launch_end(void) {
  E().launch_end();
}
uint64_t evk_acl_workspace(void) {
  return E().workspace();
}
uint32_t evk_acl_init_queue(int32_t pos, int32_t depth, uint32_t num, uint32_t len) {
  return E().init_queue(pos, depth, num, len);
}
uint32_t evk_acl_init_tbuf(int32_t pos, uint32_t len) {
  return E().init_tbuf(pos, len);
}
void evk_acl_alloc(uint32_t q, int32_t dtype, evk_lt* out) {
  E().alloc(q, dtype, out);
}
void evk_acl_enque(uint32_t q, const evk_lt* t) {
  E().enque(q, t);
}
void evk_acl_deque(uint32_t q, int32_t dtype, evk_lt* out) {
  E().deque(q, dtype, out);
}
void evk_acl_free(uint32_t q, const evk_lt* t) {
  E().free_tensor(q, t);
}
void evk_acl_tbuf_get(uint32_t b, int32_t dtype, uint32_t count, evk_lt* out) {
  E().tbuf_get(b, dtype, count, out);
}
void evk_acl_check_sub(const evk_lt* t, uint32_t off) {
  E().check_sub(t, off);
}
void evk_acl_gm_check(const evk_gt* t) {
  E().gm_check(t);
}
void evk_acl_copy(int32_t dir, const evk_lt* lt, const evk_lt* lt2, const evk_gt* gt, uint32_t n) {
  E().copy(dir, lt, lt2, gt, n);
}
void evk_acl_copy_blocks(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                         uint32_t len, uint32_t ss, uint32_t ds) {
  E().copy_blocks(dir, lt, gt, count, len, ss, ds);
}
void evk_acl_copy_pad(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                      uint32_t bytes, uint32_t ss, uint32_t ds, int32_t pad, uint32_t left,
                      uint32_t right, double v) {
  E().copy_pad(dir, lt, gt, count, bytes, ss, ds, pad, left, right, v);
}
void evk_acl_binary(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* b, uint32_t n) {
  E().binary(op, d, a, b, n);
}
void evk_acl_scalar(int32_t op, const evk_lt* d, const evk_lt* a, double s, uint32_t n) {
  E().scalar_op(op, d, a, s, n);
}
void evk_acl_unary(int32_t op, const evk_lt* d, const evk_lt* a, uint32_t n) {
  E().unary(op, d, a, n);
}
void evk_acl_duplicate(const evk_lt* d, double s, uint32_t n) {
  E().duplicate(d, s, n);
}
void evk_acl_cast(const evk_lt* d, const evk_lt* a, int32_t round, uint32_t n) {
  E().cast(d, a, round, n);
}
void evk_acl_compare(const evk_lt* m, const evk_lt* a, const evk_lt* b, double s, int32_t ws,
                     int32_t mode, uint32_t n) {
  E().compare(m, a, b, s, ws != 0, mode, n);
}
void evk_acl_select(const evk_lt* d, const evk_lt* m, const evk_lt* a, const evk_lt* b, double s,
                    int32_t mode, uint32_t n) {
  E().select(d, m, a, b, s, mode, n);
}
void evk_acl_reduce(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* w, uint32_t n,
                    int32_t index) {
  E().reduce(op, d, a, w, n, index != 0);
}
void evk_acl_whole_reduce(int32_t op, const evk_lt* d, const evk_lt* a, int32_t mask, int32_t rep,
                          int32_t dst_rep, int32_t src_blk, int32_t src_rep, int32_t order) {
  E().whole_reduce(op, d, a, mask, rep, dst_rep, src_blk, src_rep, order);
}
double evk_acl_get(const evk_lt* t, uint32_t i) {
  return E().get_value(t, i);
}
void evk_acl_set(const evk_lt* t, uint32_t i, double v) {
  E().set_value(t, i, v);
}
double evk_acl_gm_get(const evk_gt* t, uint64_t i) {
  return E().gm_get(t, i);
}
void evk_acl_gm_set(const evk_gt* t, uint64_t i, double v) {
  E().gm_set(t, i, v);
}
void evk_acl_matmul(const evk_mm* mm) {
  E().matmul(mm);
}
void evk_acl_barrier(int32_t pipe) {
  E().barrier(pipe);
}
uint64_t evk_acl_dev_malloc(uint64_t bytes) {
  return E().dev_malloc(bytes);
}
void evk_acl_dev_upload(uint64_t addr, const void* src, uint64_t bytes) {
  E().dev_upload(addr, src, bytes);
}
void evk_acl_dev_free(uint64_t addr) {
  E().dev_free(addr);
}
}
