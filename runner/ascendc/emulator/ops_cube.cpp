// The cube through the high-level Matmul API: IterateAll's numbers (float accumulation in K
// order) and its cost (base tiles through MTE2, the cube, the fixpipe out).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "emulator_impl.h"

namespace evk::runner::ascendc {
using namespace emu;

namespace {
// The bytes of [lo, hi) no earlier Matmul of this launch has read; records the span.
double first_read(Emulator::Impl& I, uint64_t lo, uint64_t hi) {
  double fresh = static_cast<double>(hi - lo);
  std::vector<std::pair<uint64_t, uint64_t>> cut;  // [lo, hi) intersected with the spans
  for (const auto& [a, b] : I.matmul_reads)
    if (a < hi && lo < b) cut.emplace_back(std::max(a, lo), std::min(b, hi));
  std::sort(cut.begin(), cut.end());
  uint64_t covered_to = lo;
  for (const auto& [a, b] : cut) {
    uint64_t from = std::max(a, covered_to);
    if (b > from) fresh -= static_cast<double>(b - from), covered_to = b;
  }
  I.matmul_reads.emplace_back(lo, hi);
  return fresh;
}
}  // namespace

void Emulator::matmul(const evk_mm* mm) {
  Impl& I = impl();
  const char* api = "Matmul::IterateAll";
  need_block(*this, I.in_block, api);
  if (mm->a.dtype != mm->b.dtype || (mm->a.dtype != EVK_F32 && mm->a.dtype != EVK_F16))
    fail("DTYPE_UNSUPPORTED", "Matmul: A and B must both be float or both half");
  if (mm->c.dtype != EVK_F32 || (mm->has_bias && mm->bias.dtype != EVK_F32))
    fail("DTYPE_UNSUPPORTED",
         "Matmul: C and the bias must be float (the cube accumulates in float)");
  if (mm->a.addr == 0 || mm->b.addr == 0)
    fail("QUEUE_MISUSE", "Matmul::IterateAll before SetTensorA and SetTensorB");
  int64_t m = mm->m, n = mm->n, k = mm->k;
  if (m <= 0 || n <= 0 || k <= 0)
    fail("MATMUL_TILING",
         fmt::format("Matmul::IterateAll with M={} N={} K={}: did REGIST_MATMUL_OBJ "
                     "get a tiling from MultiCoreMatmulTiling::GetTiling?",
                     m, n, k));
  int64_t bm = mm->base_m, bn = mm->base_n, bk = mm->base_k;
  size_t ein = dtype_bytes(mm->a.dtype);
  if (bm <= 0 || bn <= 0 || bk <= 0 || bm % 16 || bn % 16 || bk % 16)
    fail("MATMUL_TILING", fmt::format("Matmul base tile {}x{}x{}: baseM, baseN and baseK must be "
                                      "positive multiples of 16 (the cube's fractal)",
                                      bm, bn, bk));
  if (bm * bk * ein > kL0aBytes || bk * bn * ein > kL0bBytes || bm * bn * 4 > kL0cBytes)
    fail("L0_OVERFLOW", fmt::format("Matmul base tile {}x{}x{}: A's tile needs {} bytes of L0A "
                                    "({}), B's {} of L0B ({}), C's {} of L0C ({}); use smaller "
                                    "base tiles (SetFixSplit)",
                                    bm, bn, bk, bm * bk * ein, kL0aBytes, bk * bn * ein, kL0bBytes,
                                    bm * bn * 4, kL0cBytes));
  int64_t lda = mm->lda, ldb = mm->ldb, ldc = mm->ldc;
  int64_t a_last = mm->trans_a ? (k - 1) * lda + m - 1 : (m - 1) * lda + k - 1;
  int64_t b_last = mm->trans_b ? (n - 1) * ldb + k - 1 : (k - 1) * ldb + n - 1;
  int64_t c_last = (m - 1) * ldc + n - 1;
  const uint8_t* pa = gm_span(*this, I, &mm->a, a_last + 1, "Matmul (tensor A)");
  const uint8_t* pb = gm_span(*this, I, &mm->b, b_last + 1, "Matmul (tensor B)");
  uint8_t* pc = gm_span(*this, I, &mm->c, c_last + 1, "Matmul (tensor C)");
  const uint8_t* pbias = mm->has_bias ? gm_span(*this, I, &mm->bias, n, "Matmul (bias)") : nullptr;
  // The numbers: float accumulation in K order (not in cost-only mode).
  if (numerics_) {
    std::vector<float> A(m * k), B(k * n), C(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        A[i * k + kk] = static_cast<float>(
            load(pa + (mm->trans_a ? kk * lda + i : i * lda + kk) * ein, mm->a.dtype));
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        B[kk * n + j] = static_cast<float>(
            load(pb + (mm->trans_b ? j * ldb + kk : kk * ldb + j) * ein, mm->b.dtype));
    for (int64_t i = 0; i < m; ++i) {
      float* c = &C[i * n];
      for (int64_t j = 0; j < n; ++j)
        c[j] = pbias ? static_cast<float>(load(pbias + j * 4, EVK_F32)) : 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) {
        float av = A[i * k + kk];
        const float* b = &B[kk * n];
        for (int64_t j = 0; j < n; ++j) c[j] += av * b[j];
      }
    }
    for (int64_t i = 0; i < m; ++i) std::memcpy(pc + i * ldc * 4, &C[i * n], n * 4);
  }
  // The cost: base tiles through MTE2 (ping-pong in L1), the cube, then the fixpipe out. The
  // tiles a core reloads come from the L2 (the first touch is the launch's HBM floor), at its
  // rate, not the HBM link's.
  double bw = kL2BytesPerCycle;
  I.launch_cube = true;
  // HBM sees each operand once: the tiles a core reloads, and the operand blocks several
  // cores share, hit the 910B's L2.
  I.launch_gm_bytes += first_read(I, mm->a.addr, mm->a.addr + (a_last + 1) * ein) +
                       first_read(I, mm->b.addr, mm->b.addr + (b_last + 1) * ein) +
                       static_cast<double>(m * n * 4);
  double deps = std::max(gm_ready(I, mm->a.addr, mm->a.addr + (a_last + 1) * ein),
                         gm_ready(I, mm->b.addr, mm->b.addr + (b_last + 1) * ein));
  double start = std::max(I.issue, deps);
  double cube_prev[2] = {start, start}, last = start;
  uint32_t slow = mm->a.dtype == EVK_F32 ? kCubeFloatSlowdown : 1;
  int step = 0;
  for (int64_t i0 = 0; i0 < m; i0 += bm)
    for (int64_t j0 = 0; j0 < n; j0 += bn) {
      int64_t tm = std::min(bm, m - i0), tn = std::min(bn, n - j0);
      double cube_end = start;
      for (int64_t k0 = 0; k0 < k; k0 += bk, ++step) {
        int64_t tk = std::min(bk, k - k0);
        double bytes = static_cast<double>((tm * tk + tk * tn) * ein);
        // The API keeps its next tiles' loads in flight (depthA1/depthB1 buffers in L1): a load
        // holds MTE2 for its transfer, and its start-up latency delays only its own data.
        double load_start = std::max({I.pipe[kMte2], cube_prev[step % 2], start});
        double transfer_end = load_start + bytes / bw;
        I.pipe[kMte2] = transfer_end;
        I.busy[kMte2] += transfer_end - load_start;
        double cube_start = std::max(I.pipe[kCube], transfer_end + kMteStartupCycles);
        double fr = static_cast<double>(ceil_div(tm, 16)) * ceil_div(tn, 16) * ceil_div(tk, 16);
        cube_end = cube_start + fr * slow;
        I.pipe[kCube] = cube_end;
        I.busy[kCube] += cube_end - cube_start;
        cube_prev[step % 2] = cube_end;
      }
      double out_start = std::max(I.pipe[kMte3], cube_end);
      I.pipe[kMte3] = out_start + kMteStartupCycles + static_cast<double>(tm * tn * 4) / bw;
      I.busy[kMte3] += I.pipe[kMte3] - out_start;
      last = std::max(last, I.pipe[kMte3]);
    }
  I.gm_writes.push_back({mm->c.addr, mm->c.addr + (c_last + 1) * 4, last});
  I.issue = last;  // IterateAll<sync = true> returns when C is written
}

}  // namespace evk::runner::ascendc
