// The C entry points of abi/evokernel/ascendc_emu.h, exported by
// evk-runner-ascendc (ENABLE_EXPORTS) so that a candidate's library binds to them at dlopen.
// Every call goes through trace::traced, which records it for the replay (trace.h) and
// forwards it to the Emulator.
#include "trace.h"

using evk::runner::ascendc::trace::Id;
using evk::runner::ascendc::trace::traced;

extern "C" {
uint32_t evk_acl_block_idx(void) {
  return traced<Id::BlockIdx>();
}
uint32_t evk_acl_block_num(void) {
  return traced<Id::BlockNum>();
}
void evk_acl_launch_begin(uint32_t d, const char* k) {
  traced<Id::LaunchBegin>(d, k ? k : "kernel");
}
int32_t evk_acl_next_block(void) {
  return traced<Id::NextBlock>();
}
void evk_acl_launch_end(void) {
  traced<Id::LaunchEnd>();
}
uint64_t evk_acl_workspace(void) {
  return traced<Id::Workspace>();
}
uint32_t evk_acl_init_queue(int32_t pos, int32_t depth, uint32_t num, uint32_t len) {
  return traced<Id::InitQueue>(pos, depth, num, len);
}
uint32_t evk_acl_init_tbuf(int32_t pos, uint32_t len) {
  return traced<Id::InitTbuf>(pos, len);
}
void evk_acl_alloc(uint32_t q, int32_t dtype, evk_lt* out) {
  traced<Id::Alloc>(q, dtype, out);
}
void evk_acl_enque(uint32_t q, const evk_lt* t) {
  traced<Id::Enque>(q, t);
}
void evk_acl_deque(uint32_t q, int32_t dtype, evk_lt* out) {
  traced<Id::Deque>(q, dtype, out);
}
void evk_acl_free(uint32_t q, const evk_lt* t) {
  traced<Id::Free>(q, t);
}
void evk_acl_tbuf_get(uint32_t b, int32_t dtype, uint32_t count, evk_lt* out) {
  traced<Id::TbufGet>(b, dtype, count, out);
}
void evk_acl_check_sub(const evk_lt* t, uint32_t off) {
  traced<Id::CheckSub>(t, off);
}
void evk_acl_gm_check(const evk_gt* t) {
  traced<Id::GmCheck>(t);
}
void evk_acl_copy(int32_t dir, const evk_lt* lt, const evk_lt* lt2, const evk_gt* gt, uint32_t n) {
  traced<Id::Copy>(dir, lt, lt2, gt, n);
}
void evk_acl_copy_blocks(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                         uint32_t len, uint32_t ss, uint32_t ds) {
  traced<Id::CopyBlocks>(dir, lt, gt, count, len, ss, ds);
}
void evk_acl_copy_pad(int32_t dir, const evk_lt* lt, const evk_gt* gt, uint32_t count,
                      uint32_t bytes, uint32_t ss, uint32_t ds, int32_t pad, uint32_t left,
                      uint32_t right, double v) {
  traced<Id::CopyPad>(dir, lt, gt, count, bytes, ss, ds, pad, left, right, v);
}
void evk_acl_binary(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* b, uint32_t n) {
  traced<Id::Binary>(op, d, a, b, n);
}
void evk_acl_scalar(int32_t op, const evk_lt* d, const evk_lt* a, double s, uint32_t n) {
  traced<Id::Scalar>(op, d, a, s, n);
}
void evk_acl_unary(int32_t op, const evk_lt* d, const evk_lt* a, uint32_t n) {
  traced<Id::Unary>(op, d, a, n);
}
void evk_acl_duplicate(const evk_lt* d, double s, uint32_t n) {
  traced<Id::Duplicate>(d, s, n);
}
void evk_acl_cast(const evk_lt* d, const evk_lt* a, int32_t round, uint32_t n) {
  traced<Id::Cast>(d, a, round, n);
}
void evk_acl_compare(const evk_lt* m, const evk_lt* a, const evk_lt* b, double s, int32_t ws,
                     int32_t mode, uint32_t n) {
  traced<Id::Compare>(m, a, b, s, ws != 0, mode, n);
}
void evk_acl_select(const evk_lt* d, const evk_lt* m, const evk_lt* a, const evk_lt* b, double s,
                    int32_t mode, uint32_t n) {
  traced<Id::Select>(d, m, a, b, s, mode, n);
}
void evk_acl_reduce(int32_t op, const evk_lt* d, const evk_lt* a, const evk_lt* w, uint32_t n,
                    int32_t index) {
  traced<Id::Reduce>(op, d, a, w, n, index != 0);
}
void evk_acl_whole_reduce(int32_t op, const evk_lt* d, const evk_lt* a, int32_t mask, int32_t rep,
                          int32_t dst_rep, int32_t src_blk, int32_t src_rep, int32_t order) {
  traced<Id::WholeReduce>(op, d, a, mask, rep, dst_rep, src_blk, src_rep, order);
}
double evk_acl_get(const evk_lt* t, uint32_t i) {
  return traced<Id::Get>(t, i);
}
void evk_acl_set(const evk_lt* t, uint32_t i, double v) {
  traced<Id::Set>(t, i, v);
}
double evk_acl_gm_get(const evk_gt* t, uint64_t i) {
  return traced<Id::GmGet>(t, i);
}
void evk_acl_gm_set(const evk_gt* t, uint64_t i, double v) {
  traced<Id::GmSet>(t, i, v);
}
void evk_acl_matmul(const evk_mm* mm) {
  traced<Id::Matmul>(mm);
}
void evk_acl_barrier(int32_t pipe) {
  traced<Id::Barrier>(pipe);
}
uint64_t evk_acl_dev_malloc(uint64_t bytes) {
  return traced<Id::DevMalloc>(bytes);
}
void evk_acl_dev_upload(uint64_t addr, const void* src, uint64_t bytes) {
  traced<Id::DevUpload>(evk::runner::ascendc::GmAddr{addr},
                        evk::runner::ascendc::HostBytes{src, bytes});
}
void evk_acl_dev_free(uint64_t addr) {
  traced<Id::DevFree>(evk::runner::ascendc::GmAddr{addr});
}
}
