// The library's row kernels: a reduction over one dimension (sum, mean, max, min, argmax,
// argmin), softmax and log_softmax over the last dimension, and LayerNorm over the trailing
// dimensions its weight covers. A core takes whole rows; a row is one UB tile.
#include <algorithm>
#include <map>

#include "eager/library.h"
#include "eager/tile_copy.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace evk::runner::ascendc::eager {
namespace {

enum RowOp : int32_t { kSum, kMax, kMin, kArgMax, kArgMin, kSoftmax, kLogSoftmax, kLayerNorm };

struct RowTiling {
  uint32_t rows, per_core, len;  // rows of `len` elements; a core's share of rows
  uint32_t chunk;                // elements per tile (len, or less for a long reduced row)
  int32_t op;
  float scale;  // mean: 1/len; layer norm: eps
};

// The ReduceSum/ReduceMax work tensor for `n` elements: one per 256-byte repeat, and spare.
__aicore__ inline uint32_t work_elems(uint32_t n) {
  return (n / 64 + 8 + 7) / 8 * 8;
}

// One value per row: each row reduced in chunks on the vector unit, the chunks combined and the
// results gathered on the scalar unit, the gathered results copied out a tile at a time.
extern "C" __global__ __aicore__ void eager_reduce_rows(GM_ADDR x, GM_ADDR y, RowTiling t) {
  uint32_t first = static_cast<uint32_t>(GetBlockIdx()) * t.per_core;
  if (first >= t.rows) return;
  uint32_t rows = t.rows - first < t.per_core ? t.rows - first : t.per_core;
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x + static_cast<uint64_t>(first) * t.len);
  yg.SetGlobalBuffer((__gm__ float*)y + first, rows);
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qin;
  TQue<TPosition::VECOUT, 1> qout;
  TBuf<TPosition::VECCALC> calc;
  pipe.InitBuffer(qin, 2, t.chunk * 4);
  pipe.InitBuffer(qout, 1, kTileElems * 4);
  pipe.InitBuffer(calc, 64 + work_elems(t.chunk) * 4);
  LocalTensor<float> res = calc.Get<float>(8), work = calc.Get<float>()[16];
  bool arg = t.op == kArgMax || t.op == kArgMin;
  LocalTensor<float> out = qout.AllocTensor<float>();
  uint32_t gathered = 0, written = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    float acc = 0;
    uint32_t at = 0;
    for (uint32_t c = 0; c < t.len; c += t.chunk) {
      uint32_t n = t.len - c < t.chunk ? t.len - c : t.chunk;
      LocalTensor<float> a = qin.AllocTensor<float>();
      copy_in(a, xg[static_cast<uint64_t>(r) * t.len + c], n);
      qin.EnQue(a);
      a = qin.DeQue<float>();
      if (t.op == kSum)
        ReduceSum(res, a, work, static_cast<int32_t>(n));
      else if (t.op == kMax || t.op == kArgMax)
        ReduceMax(res, a, work, static_cast<int32_t>(n), arg);
      else
        ReduceMin(res, a, work, static_cast<int32_t>(n), arg);
      qin.FreeTensor(a);
      float v = res.GetValue(0);
      uint32_t i = 0;
      if (arg) {
        float bits = res.GetValue(1);
        __builtin_memcpy(&i, &bits, 4);
      }
      bool better = t.op == kSum || c == 0 || (t.op == kMax || t.op == kArgMax ? v > acc : v < acc);
      if (t.op == kSum)
        acc = c == 0 ? v : acc + v;
      else if (better)
        acc = v, at = c + i;
    }
    out.SetValue(gathered++, arg ? static_cast<float>(at) : acc * t.scale);
    if (gathered == kTileElems || r + 1 == rows) {
      qout.EnQue(out);
      out = qout.DeQue<float>();
      copy_out(yg[written], out, gathered);
      qout.FreeTensor(out);
      written += gathered;
      gathered = 0;
      if (r + 1 < rows) out = qout.AllocTensor<float>();
    }
  }
}

// Softmax, log_softmax or LayerNorm of each row (one row per tile).
extern "C" __global__ __aicore__ void eager_row_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta,
                                                     GM_ADDR y, RowTiling t) {
  uint32_t first = static_cast<uint32_t>(GetBlockIdx()) * t.per_core;
  if (first >= t.rows) return;
  uint32_t rows = t.rows - first < t.per_core ? t.rows - first : t.per_core;
  uint32_t padded = (t.len + 7) / 8 * 8;
  int32_t n = static_cast<int32_t>(t.len);
  GlobalTensor<float> xg, yg, gg, bg;
  xg.SetGlobalBuffer((__gm__ float*)x + static_cast<uint64_t>(first) * t.len);
  yg.SetGlobalBuffer((__gm__ float*)y + static_cast<uint64_t>(first) * t.len);
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qin;
  TQue<TPosition::VECOUT, 2> qout;
  TBuf<TPosition::VECCALC> calc, params;
  pipe.InitBuffer(qin, 2, padded * 4);
  pipe.InitBuffer(qout, 2, padded * 4);
  pipe.InitBuffer(calc, 64 + padded * 4 + work_elems(padded) * 4);
  LocalTensor<float> res = calc.Get<float>(8), tmp = calc.Get<float>()[16];
  LocalTensor<float> work = tmp[padded];
  bool norm = t.op == kLayerNorm;
  LocalTensor<float> g, b;
  if (norm && gamma != nullptr) {  // the affine parameters, once per core
    pipe.InitBuffer(params, 2 * padded * 4);
    g = params.Get<float>();
    b = g[padded];
    gg.SetGlobalBuffer((__gm__ float*)gamma, t.len);
    bg.SetGlobalBuffer((__gm__ float*)beta, t.len);
    copy_in(g, gg, t.len);
    copy_in(b, bg, t.len);
  }
  for (uint32_t r = 0; r < rows; ++r) {
    LocalTensor<float> a = qin.AllocTensor<float>();
    copy_in(a, xg[static_cast<uint64_t>(r) * t.len], t.len);
    qin.EnQue(a);
    a = qin.DeQue<float>();
    LocalTensor<float> o = qout.AllocTensor<float>();
    if (norm) {
      ReduceSum(res, a, work, n);
      float mean = res.GetValue(0) / static_cast<float>(n);
      Adds(o, a, -mean, n);
      Mul(tmp, o, o, n);
      ReduceSum(res, tmp, work, n);
      float var = res.GetValue(0) / static_cast<float>(n);
      float rstd = 1.0f / __builtin_sqrtf(var + t.scale);
      Muls(o, o, rstd, n);
      if (gamma != nullptr) {
        Mul(o, o, g, n);
        Add(o, o, b, n);
      }
    } else {
      ReduceMax(res, a, work, n);
      Adds(o, a, -res.GetValue(0), n);
      Exp(tmp, o, n);
      ReduceSum(res, tmp, work, n);
      float sum = res.GetValue(0);
      if (t.op == kSoftmax)
        Muls(o, tmp, 1.0f / sum, n);
      else
        Adds(o, o, -__builtin_logf(sum), n);
    }
    qout.EnQue(o);
    qin.FreeTensor(a);
    o = qout.DeQue<float>();
    copy_out(yg[static_cast<uint64_t>(r) * t.len], o, t.len);
    qout.FreeTensor(o);
  }
}

// Sum, max or min over a middle dimension: outer x reduced x inner, each core a share of the
// (outer, column chunk) units. A tile holds `rows` rows of a chunk, loaded by one strided
// DataCopy (or row by row when the rows are not whole 32-byte blocks) and folded in halves on
// the vector unit into its first row, which accumulates into the unit's result.
struct MidTiling {
  uint32_t outer, reduced, inner, chunk, units, per_core, rows;
  int32_t op;
  float scale;
};

__aicore__ inline void fold(int32_t op, const LocalTensor<float>& d, const LocalTensor<float>& a,
                            const LocalTensor<float>& b, int32_t n) {
  if (op == kSum)
    Add(d, a, b, n);
  else if (op == kMax)
    Max(d, a, b, n);
  else
    Min(d, a, b, n);
}

extern "C" __global__ __aicore__ void eager_reduce_mid(GM_ADDR x, GM_ADDR y, MidTiling t) {
  uint32_t first = static_cast<uint32_t>(GetBlockIdx()) * t.per_core;
  if (first >= t.units) return;
  uint32_t units = t.units - first < t.per_core ? t.units - first : t.per_core;
  uint32_t chunks = (t.inner + t.chunk - 1) / t.chunk;
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x);
  yg.SetGlobalBuffer((__gm__ float*)y);
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qin;
  TQue<TPosition::VECOUT, 1> qout;
  pipe.InitBuffer(qin, 2, t.rows * t.chunk * 4);
  pipe.InitBuffer(qout, 1, t.chunk * 4);
  bool strided = t.inner % 8 == 0;
  for (uint32_t u = first; u < first + units; ++u) {
    uint32_t o = u / chunks, c0 = (u % chunks) * t.chunk;
    uint32_t w = t.inner - c0 < t.chunk ? t.inner - c0 : t.chunk;
    int32_t wp = static_cast<int32_t>((w + 7) / 8 * 8);
    LocalTensor<float> acc = qout.AllocTensor<float>();
    for (uint32_t r0 = 0; r0 < t.reduced; r0 += t.rows) {
      uint32_t rows = t.reduced - r0 < t.rows ? t.reduced - r0 : t.rows;
      LocalTensor<float> a = qin.AllocTensor<float>();
      uint64_t at = (static_cast<uint64_t>(o) * t.reduced + r0) * t.inner + c0;
      if (strided && w % 8 == 0) {
        DataCopy(a, xg[at],
                 DataCopyParams(static_cast<uint16_t>(rows), static_cast<uint16_t>(w / 8),
                                static_cast<uint16_t>((t.inner - w) / 8), 0));
      } else {
        for (uint32_t r = 0; r < rows; ++r)
          copy_in(a[r * static_cast<uint32_t>(wp)], xg[at + static_cast<uint64_t>(r) * t.inner], w);
      }
      qin.EnQue(a);
      a = qin.DeQue<float>();
      for (uint32_t n = rows; n > 1; n = (n + 1) / 2) {  // fold the rows in halves
        uint32_t half = n / 2, keep = n - half;
        fold(t.op, a, a, a[keep * static_cast<uint32_t>(wp)], static_cast<int32_t>(half) * wp);
      }
      if (r0 == 0)
        Muls(acc, a, 1.0f, wp);
      else
        fold(t.op, acc, acc, a, wp);
      qin.FreeTensor(a);
    }
    if (t.scale != 1.0f) Muls(acc, acc, t.scale, wp);
    qout.EnQue(acc);
    acc = qout.DeQue<float>();
    copy_out(yg[static_cast<uint64_t>(o) * t.inner + c0], acc, w);
    qout.FreeTensor(acc);
  }
}

// Shares of `units` over at most 48 cores (at least one unit each).
uint32_t share(uint64_t units, uint32_t* cores) {
  uint64_t c = units < kLibCores ? (units ? units : 1) : kLibCores;
  uint64_t per = (units + c - 1) / c;
  *cores = static_cast<uint32_t>((units + per - 1) / per);
  return static_cast<uint32_t>(per);
}

const std::map<std::string, int32_t, std::less<>>& reductions() {
  static const std::map<std::string, int32_t, std::less<>> k = {
      {"sum", kSum}, {"mean", kSum}, {"max", kMax},       {"amax", kMax},
      {"min", kMin}, {"amin", kMin}, {"argmax", kArgMax}, {"argmin", kArgMin}};
  return k;
}

// The reduced dimension: the one whose removal (or setting to 1) gives `out`; -1 for a
// reduction of everything, -2 when the shapes say neither.
int reduced_dim(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  if (numel(out) == 1) return -1;
  for (size_t d = 0; d < in.size(); ++d) {
    std::vector<int64_t> drop = in, keep = in;
    drop.erase(drop.begin() + static_cast<long>(d));
    keep[d] = 1;
    if ((out == drop || out == keep) && in[d] != 1) return static_cast<int>(d);
  }
  return -2;
}

std::optional<Plan> reduce_plan(const LibOp& op, int32_t code, std::string* why) {
  const auto& in = op.in[0];
  int d = reduced_dim(in, op.out);
  if (d == -2) {
    *why = "a reduction over several dimensions";
    return std::nullopt;
  }
  uint64_t outer = 1, inner = 1, len = static_cast<uint64_t>(numel(in));
  if (d >= 0) {
    len = static_cast<uint64_t>(in[static_cast<size_t>(d)]);
    for (int i = 0; i < d; ++i) outer *= static_cast<uint64_t>(in[static_cast<size_t>(i)]);
    for (size_t i = static_cast<size_t>(d) + 1; i < in.size(); ++i)
      inner *= static_cast<uint64_t>(in[i]);
  }
  float scale = op.op == "mean" ? 1.0f / static_cast<float>(len) : 1.0f;
  uint32_t cores = 1;
  if (inner == 1) {
    RowTiling t{};
    t.rows = static_cast<uint32_t>(outer);
    t.len = static_cast<uint32_t>(len);
    t.chunk = len < kTileElems ? static_cast<uint32_t>((len + 7) / 8 * 8) : kTileElems;
    t.op = code;
    t.scale = scale;
    t.per_core = share(outer, &cores);
    return Plan{
        "eager_reduce_rows(" + op.op + ")", [t, cores](const std::vector<uint64_t>& a, uint64_t y) {
          ACLRT_LAUNCH_KERNEL(eager_reduce_rows)
          (cores, nullptr, reinterpret_cast<GM_ADDR>(a[0]), reinterpret_cast<GM_ADDR>(y), t);
        }};
  }
  if (code == kArgMax || code == kArgMin) {
    *why = op.op + " over a dimension that is not the last";
    return std::nullopt;
  }
  MidTiling t{};
  t.outer = static_cast<uint32_t>(outer);
  t.reduced = static_cast<uint32_t>(len);
  t.inner = static_cast<uint32_t>(inner);
  // Columns split so that the units fill the cores where the outer dimension alone cannot.
  uint64_t ways = outer >= kLibCores ? 1 : kLibCores / outer;
  uint64_t chunk = ((inner + ways - 1) / ways + 7) / 8 * 8;
  t.chunk = static_cast<uint32_t>(std::min<uint64_t>(chunk, kTileElems));
  t.rows = std::max(1u, kTileElems / t.chunk);
  t.units = static_cast<uint32_t>(outer * ((inner + t.chunk - 1) / t.chunk));
  t.op = code;
  t.scale = scale;
  t.per_core = share(t.units, &cores);
  return Plan{"eager_reduce_mid(" + op.op + ")",
              [t, cores](const std::vector<uint64_t>& a, uint64_t y) {
                ACLRT_LAUNCH_KERNEL(eager_reduce_mid)
                (cores, nullptr, reinterpret_cast<GM_ADDR>(a[0]), reinterpret_cast<GM_ADDR>(y), t);
              }};
}

}  // namespace

std::optional<Plan> plan_rows(const LibOp& op, std::string* why) {
  if (op.in.empty()) {
    *why = "no tensor operand";
    return std::nullopt;
  }
  if (auto it = reductions().find(op.op); it != reductions().end() && op.in.size() == 1)
    return reduce_plan(op, it->second, why);
  bool softmax = op.op == "softmax" || op.op == "log_softmax";
  bool norm = op.op == "layernorm" || op.op == "layer_norm";
  if (!softmax && !norm) {
    *why = "no row kernel for " + op.op;
    return std::nullopt;
  }
  // The normalised length: the last dimension (softmax over dim -1, the KernelBench form), or
  // what LayerNorm's weight covers.
  uint64_t total = static_cast<uint64_t>(numel(op.in[0]));
  uint64_t len = op.in[0].empty() ? 1 : static_cast<uint64_t>(op.in[0].back());
  if (norm && op.in.size() >= 2) len = static_cast<uint64_t>(numel(op.in[1]));
  if (len == 0 || total % len != 0 || len > kTileElems) {
    *why = "a row longer than the library's tile (" + std::to_string(kTileElems) + " elements)";
    return std::nullopt;
  }
  RowTiling t{};
  t.rows = static_cast<uint32_t>(total / len);
  t.len = t.chunk = static_cast<uint32_t>(len);
  t.op = norm ? kLayerNorm : (op.op == "softmax" ? kSoftmax : kLogSoftmax);
  t.scale = norm ? (op.scalars.empty() ? 1e-5f : static_cast<float>(op.scalars[0])) : 1.0f;
  uint32_t cores = 1;
  t.per_core = share(t.rows, &cores);
  bool affine = norm && op.in.size() >= 3;
  return Plan{"eager_row_norm(" + op.op + ")",
              [t, cores, affine](const std::vector<uint64_t>& a, uint64_t y) {
                GM_ADDR g = affine ? reinterpret_cast<GM_ADDR>(a[1]) : nullptr;
                GM_ADDR b = affine ? reinterpret_cast<GM_ADDR>(a[2]) : nullptr;
                ACLRT_LAUNCH_KERNEL(eager_row_norm)
                (cores, nullptr, reinterpret_cast<GM_ADDR>(a[0]), g, b,
                 reinterpret_cast<GM_ADDR>(y), t);
              }};
}

}  // namespace evk::runner::ascendc::eager
