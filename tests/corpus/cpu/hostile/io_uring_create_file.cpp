// task: builtin:level1/relu
// expect: runtime_crash
// feedback: io_uring_setup
// gates: no-static-source no-instruction-scan
// hostile: creates /tmp/evk-hostile-uring through io_uring (IORING_OP_OPENAT): the ring
// does the open in the kernel, where a filter on openat never sees it. Against the old (denylist)
// filter it succeeded: io_uring_setup was not on the list. The allowlist stops io_uring_setup.
#include "evokernel/kernel_abi.h"

static long sys(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  long r;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return r;
}

static int relu(const evk_tensor* in, evk_tensor* out) {
  const float* x = (const float*)in[0].data;
  float* y = (float*)out[0].data;
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] < 0 ? 0 : x[i];
  return 0;
}

#include <linux/io_uring.h>

extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  io_uring_params p{};
  long fd = sys(425, 4, (long)&p);  // io_uring_setup
  if (fd < 0) return 13;
  char* sq = (char*)sys(9, 0, p.sq_off.array + p.sq_entries * 4, 3, 1, fd, IORING_OFF_SQ_RING);
  io_uring_sqe* sqes = (io_uring_sqe*)sys(9, 0, p.sq_entries * sizeof(io_uring_sqe), 3, 1, fd,
                                         IORING_OFF_SQES);
  char* cq = (char*)sys(9, 0, p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe), 3, 1, fd,
                        IORING_OFF_CQ_RING);
  static const char path[] = "/tmp/evk-hostile-uring";
  io_uring_sqe* e = &sqes[0];
  e->opcode = IORING_OP_OPENAT;
  e->fd = -100;  // AT_FDCWD
  e->addr = (unsigned long)path;
  e->len = 0644;
  e->open_flags = 0101;  // O_WRONLY | O_CREAT
  unsigned* tail = (unsigned*)(sq + p.sq_off.tail);
  ((unsigned*)(sq + p.sq_off.array))[*tail & *(unsigned*)(sq + p.sq_off.ring_mask)] = 0;
  __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
  sys(426, fd, 1, 1, IORING_ENTER_GETEVENTS);  // io_uring_enter
  io_uring_cqe* c = (io_uring_cqe*)(cq + p.cq_off.cqes);
  if (c[0].res < 0) return 13;
  return relu(in, out);
}
