// The library's elementwise kernels: a unary map (one input, a recipe of vector instructions
// per tile, the way the library composes an activation) and a binary op with the broadcasts
// PyTorch programs use most (equal shapes, a row repeated over leading dimensions, one value
// per row, one value in all).
#include <cmath>
#include <map>

#include "eager/library.h"
#include "eager/tile_copy.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace evk::runner::ascendc::eager {
namespace {

// ---- the unary map ----

enum Step : int32_t {
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kLn,
  kAbs,
  kSqrt,
  kRsqrt,
  kRecip,
  kErf,
  kSin,
  kCos,
  kMuls,
  kAdds,
  kMaxs,
  kMins,
  kLeaky,  // with a scalar
  kMulX,
  kAddReluX,
  kDivXBy,
  kSquare,  // with the tile's input x
};
constexpr int kMaxSteps = 12;

struct Recipe {
  int32_t n = 0;
  int32_t step[kMaxSteps] = {};
  float s[kMaxSteps] = {};
};

struct MapTiling {
  uint32_t total, per_core, tile;
  Recipe r;
};

// y = recipe(x) on `n` elements: the first step reads x, the others y in place.
__aicore__ inline void apply(const LocalTensor<float>& y, const LocalTensor<float>& x,
                             const LocalTensor<float>& tmp, const Recipe& r, int32_t n) {
  for (int32_t i = 0; i < r.n; ++i) {
    const LocalTensor<float>& a = i == 0 ? x : y;
    float s = r.s[i];
    switch (r.step[i]) {
      case kRelu:
        Relu(y, a, n);
        break;
      case kSigmoid:
        Sigmoid(y, a, static_cast<uint32_t>(n));
        break;
      case kTanh:
        Tanh(y, a, static_cast<uint32_t>(n));
        break;
      case kExp:
        Exp(y, a, n);
        break;
      case kLn:
        Ln(y, a, n);
        break;
      case kAbs:
        Abs(y, a, n);
        break;
      case kSqrt:
        Sqrt(y, a, n);
        break;
      case kRsqrt:
        Rsqrt(y, a, n);
        break;
      case kRecip:
        Reciprocal(y, a, n);
        break;
      case kErf:
        Erf(y, a, n);
        break;
      case kSin:
        Sin(y, a, n);
        break;
      case kCos:
        Cos(y, a, n);
        break;
      case kMuls:
        Muls(y, a, s, n);
        break;
      case kAdds:
        Adds(y, a, s, n);
        break;
      case kMaxs:
        Maxs(y, a, s, n);
        break;
      case kMins:
        Mins(y, a, s, n);
        break;
      case kLeaky:
        LeakyRelu(y, a, s, n);
        break;
      case kMulX:
        Mul(y, a, x, n);
        break;
      case kSquare:
        Mul(y, a, a, n);
        break;
      case kDivXBy:
        Div(y, x, a, n);
        break;
      case kAddReluX:
        Relu(tmp, x, n);
        Add(y, a, tmp, n);
        break;
    }
  }
}

extern "C" __global__ __aicore__ void eager_map(GM_ADDR x, GM_ADDR y, MapTiling t) {
  uint64_t start = static_cast<uint64_t>(GetBlockIdx()) * t.per_core;
  if (start >= t.total) return;
  uint32_t len = static_cast<uint32_t>(t.total - start < t.per_core ? t.total - start : t.per_core);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x + start, len);
  yg.SetGlobalBuffer((__gm__ float*)y + start, len);
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qin;
  TQue<TPosition::VECOUT, 2> qout;
  TBuf<TPosition::VECCALC> tmp;
  pipe.InitBuffer(qin, 2, t.tile * 4);
  pipe.InitBuffer(qout, 2, t.tile * 4);
  pipe.InitBuffer(tmp, t.tile * 4);
  LocalTensor<float> scratch = tmp.Get<float>();
  for (uint32_t off = 0; off < len; off += t.tile) {
    uint32_t n = len - off < t.tile ? len - off : t.tile;
    int32_t padded = static_cast<int32_t>((n + 7) / 8 * 8);
    LocalTensor<float> a = qin.AllocTensor<float>();
    copy_in(a, xg[off], n);
    qin.EnQue(a);
    a = qin.DeQue<float>();
    LocalTensor<float> b = qout.AllocTensor<float>();
    apply(b, a, scratch, t.r, padded);
    qout.EnQue(b);
    qin.FreeTensor(a);
    b = qout.DeQue<float>();
    copy_out(yg[off], b, n);
    qout.FreeTensor(b);
  }
}

// The recipes: how the library composes each activation from vector instructions.
struct Named {
  std::vector<std::pair<Step, float>> steps;
};
const std::map<std::string, Named, std::less<>>& recipes() {
  static const std::map<std::string, Named, std::less<>> k = {
      {"relu", {{{kRelu, 0}}}},
      {"sigmoid", {{{kSigmoid, 0}}}},
      {"tanh", {{{kTanh, 0}}}},
      {"exp", {{{kExp, 0}}}},
      {"log", {{{kLn, 0}}}},
      {"abs", {{{kAbs, 0}}}},
      {"sqrt", {{{kSqrt, 0}}}},
      {"rsqrt", {{{kRsqrt, 0}}}},
      {"reciprocal", {{{kRecip, 0}}}},
      {"erf", {{{kErf, 0}}}},
      {"sin", {{{kSin, 0}}}},
      {"cos", {{{kCos, 0}}}},
      {"neg", {{{kMuls, -1}}}},
      {"square", {{{kSquare, 0}}}},
      // 0.5 x (1 + erf(x / sqrt 2))
      {"gelu", {{{kMuls, 0.70710678f}, {kErf, 0}, {kAdds, 1}, {kMulX, 0}, {kMuls, 0.5f}}}},
      {"silu", {{{kSigmoid, 0}, {kMulX, 0}}}},
      // alpha (exp(min(x, 0)) - 1) + relu(x)
      {"elu", {{{kMins, 0}, {kExp, 0}, {kAdds, -1}, {kMuls, 1}, {kAddReluX, 0}}}},
      {"selu",
       {{{kMins, 0},
         {kExp, 0},
         {kAdds, -1},
         {kMuls, 1.6732632f},
         {kAddReluX, 0},
         {kMuls, 1.0507010f}}}},
      {"leaky_relu", {{{kLeaky, 0.01f}}}},
      {"hardtanh", {{{kMaxs, -1}, {kMins, 1}}}},
      {"clamp", {{{kMaxs, -1}, {kMins, 1}}}},
      {"hardsigmoid", {{{kMuls, 1.0f / 6}, {kAdds, 0.5f}, {kMaxs, 0}, {kMins, 1}}}},
      {"hardswish", {{{kMuls, 1.0f / 6}, {kAdds, 0.5f}, {kMaxs, 0}, {kMins, 1}, {kMulX, 0}}}},
      {"softplus", {{{kExp, 0}, {kAdds, 1}, {kLn, 0}}}},
      {"softsign", {{{kAbs, 0}, {kAdds, 1}, {kDivXBy, 0}}}},
      {"mish", {{{kExp, 0}, {kAdds, 1}, {kLn, 0}, {kTanh, 0}, {kMulX, 0}}}},
      {"logsigmoid", {{{kMuls, -1}, {kExp, 0}, {kAdds, 1}, {kLn, 0}, {kMuls, -1}}}},
      {"log_sigmoid", {{{kMuls, -1}, {kExp, 0}, {kAdds, 1}, {kLn, 0}, {kMuls, -1}}}},
  };
  return k;
}

// A tensor op a scalar, as the one-instruction recipe the library runs for it.
std::optional<Named> scalar_recipe(const std::string& op, double s) {
  float f = static_cast<float>(s);
  if (op == "mul") return Named{{{kMuls, f}}};
  if (op == "add") return Named{{{kAdds, f}}};
  if (op == "sub") return Named{{{kAdds, -f}}};
  if ((op == "truediv" || op == "div") && s != 0) return Named{{{kMuls, 1.0f / f}}};
  if (op == "pow" && s == 2) return Named{{{kSquare, 0}}};
  if (op == "pow" && s == 0.5) return Named{{{kSqrt, 0}}};
  if (op == "maximum" || op == "clamp_min") return Named{{{kMaxs, f}}};
  if (op == "minimum" || op == "clamp_max") return Named{{{kMins, f}}};
  return std::nullopt;
}

// How many cores and how many elements each: whole tiles, at most 48 cores, 32-byte shares.
void split(uint64_t total, uint32_t* cores, uint32_t* per_core) {
  uint64_t tiles = (total + kTileElems - 1) / kTileElems;
  *cores = static_cast<uint32_t>(tiles < kLibCores ? (tiles ? tiles : 1) : kLibCores);
  uint64_t share = (total + *cores - 1) / *cores;
  *per_core = static_cast<uint32_t>((share + 7) / 8 * 8);
  *cores = static_cast<uint32_t>((total + *per_core - 1) / *per_core);
}

Plan map_plan(const std::string& name, const Named& rec, uint64_t total) {
  MapTiling t{};
  t.total = static_cast<uint32_t>(total);
  t.tile = kTileElems;
  for (const auto& [st, s] : rec.steps) {
    t.r.step[t.r.n] = st;
    t.r.s[t.r.n++] = s;
  }
  uint32_t cores = 1;
  split(total, &cores, &t.per_core);
  return {"eager_map(" + name + ")", [t, cores](const std::vector<uint64_t>& in, uint64_t out) {
            ACLRT_LAUNCH_KERNEL(eager_map)
            (cores, nullptr, reinterpret_cast<GM_ADDR>(in[0]), reinterpret_cast<GM_ADDR>(out), t);
          }};
}

// ---- the binary op ----

enum class Bcast : int32_t { kNone, kRow, kPerRow, kOne };

struct BinTiling {
  uint32_t total, per_core, tile, row;  // row: the broadcast row's length (kRow), or the
                                        // output row's (kPerRow)
  int32_t op;                           // 0 add, 1 sub, 2 mul, 3 div, 4 max, 5 min
  int32_t bcast;
  int32_t swapped;  // the broadcast operand is the first (a - b with a broadcast)
};

__aicore__ inline void binop(int32_t op, const LocalTensor<float>& y, const LocalTensor<float>& a,
                             const LocalTensor<float>& b, int32_t n) {
  switch (op) {
    case 0:
      Add(y, a, b, n);
      break;
    case 1:
      Sub(y, a, b, n);
      break;
    case 2:
      Mul(y, a, b, n);
      break;
    case 3:
      Div(y, a, b, n);
      break;
    case 4:
      Max(y, a, b, n);
      break;
    default:
      Min(y, a, b, n);
      break;
  }
}

// y = a op s for one row: the scalar forms (Sub and Div through Adds and Muls).
__aicore__ inline void binop_scalar(int32_t op, bool swapped, const LocalTensor<float>& y,
                                    const LocalTensor<float>& a, float s, int32_t n) {
  switch (op) {
    case 0:
      Adds(y, a, s, n);
      break;
    case 1:
      if (swapped) {  // s - a
        Muls(y, a, -1.0f, n);
        Adds(y, y, s, n);
      } else {
        Adds(y, a, -s, n);
      }
      break;
    case 2:
      Muls(y, a, s, n);
      break;
    case 3:
      if (swapped) {  // s / a
        Reciprocal(y, a, n);
        Muls(y, y, s, n);
      } else {
        Muls(y, a, 1.0f / s, n);
      }
      break;
    case 4:
      Maxs(y, a, s, n);
      break;
    default:
      Mins(y, a, s, n);
      break;
  }
}

extern "C" __global__ __aicore__ void eager_binary(GM_ADDR a, GM_ADDR b, GM_ADDR y, BinTiling t) {
  uint64_t start = static_cast<uint64_t>(GetBlockIdx()) * t.per_core;
  if (start >= t.total) return;
  uint32_t len = static_cast<uint32_t>(t.total - start < t.per_core ? t.total - start : t.per_core);
  Bcast bc = static_cast<Bcast>(t.bcast);
  GlobalTensor<float> ag, bg, yg;
  ag.SetGlobalBuffer((__gm__ float*)a + start, len);
  yg.SetGlobalBuffer((__gm__ float*)y + start, len);
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qa, qb;
  TQue<TPosition::VECOUT, 2> qy;
  TBuf<TPosition::VECCALC> rowbuf;
  pipe.InitBuffer(qa, 2, t.tile * 4);
  pipe.InitBuffer(qy, 2, t.tile * 4);
  float one = 0;
  LocalTensor<float> brow;
  if (bc == Bcast::kNone || bc == Bcast::kPerRow) {
    pipe.InitBuffer(qb, 2, t.tile * 4);
    bg.SetGlobalBuffer((__gm__ float*)b + (bc == Bcast::kNone ? start : start / t.row),
                       bc == Bcast::kNone ? len : len / t.row);
  } else if (bc == Bcast::kRow) {  // the row, once per core
    pipe.InitBuffer(rowbuf, (t.row + 7) / 8 * 8 * 4);
    brow = rowbuf.Get<float>();
    bg.SetGlobalBuffer((__gm__ float*)b, t.row);
    copy_in(brow, bg, t.row);
    PipeBarrier<PIPE_ALL>();
  } else {
    bg.SetGlobalBuffer((__gm__ float*)b, 1);
    one = bg.GetValue(0);
  }
  for (uint32_t off = 0; off < len; off += t.tile) {
    uint32_t n = len - off < t.tile ? len - off : t.tile;
    int32_t padded = static_cast<int32_t>((n + 7) / 8 * 8);
    LocalTensor<float> la = qa.AllocTensor<float>();
    copy_in(la, ag[off], n);
    qa.EnQue(la);
    LocalTensor<float> lb;
    if (bc == Bcast::kNone || bc == Bcast::kPerRow) {
      lb = qb.AllocTensor<float>();
      uint32_t nb = bc == Bcast::kNone ? n : n / t.row;
      copy_in(lb, bg[bc == Bcast::kNone ? off : off / t.row], nb);
      qb.EnQue(lb);
      lb = qb.DeQue<float>();
    }
    la = qa.DeQue<float>();
    LocalTensor<float> ly = qy.AllocTensor<float>();
    bool sw = t.swapped != 0;
    if (bc == Bcast::kNone) {
      binop(t.op, ly, sw ? lb : la, sw ? la : lb, padded);
    } else if (bc == Bcast::kOne) {
      binop_scalar(t.op, sw, ly, la, one, padded);
    } else if (bc == Bcast::kRow) {  // row by row against the broadcast row
      for (uint32_t r = 0; r < n; r += t.row)
        binop(t.op, ly[r], sw ? brow : la[r], sw ? la[r] : brow, static_cast<int32_t>(t.row));
    } else {  // one value per row, read through the scalar unit
      for (uint32_t r = 0; r < n; r += t.row)
        binop_scalar(t.op, sw, ly[r], la[r], lb.GetValue(r / t.row), static_cast<int32_t>(t.row));
    }
    qy.EnQue(ly);
    qa.FreeTensor(la);
    if (bc == Bcast::kNone || bc == Bcast::kPerRow) qb.FreeTensor(lb);
    ly = qy.DeQue<float>();
    copy_out(yg[off], ly, n);
    qy.FreeTensor(ly);
  }
}

int32_t bin_code(const std::string& op) {
  static const std::map<std::string, int32_t, std::less<>> k = {
      {"add", 0}, {"sub", 1},     {"mul", 2},    {"truediv", 3},
      {"div", 3}, {"maximum", 4}, {"minimum", 5}};
  auto it = k.find(op);
  return it == k.end() ? -1 : it->second;
}

// The broadcast of `small` against `out`, and its row length; nullopt when it is none of ours.
std::optional<std::pair<Bcast, uint32_t>> broadcast_of(const std::vector<int64_t>& small,
                                                       const std::vector<int64_t>& out) {
  int64_t n = numel(small), total = numel(out);
  if (n == total) return std::make_pair(Bcast::kNone, 0u);
  if (n == 1) return std::make_pair(Bcast::kOne, 0u);
  if (out.empty()) return std::nullopt;
  // A row: small's shape (leading 1s aside) is out's trailing dimensions.
  std::vector<int64_t> s = small;
  while (!s.empty() && s.front() == 1) s.erase(s.begin());
  if (s.size() <= out.size() && std::equal(s.rbegin(), s.rend(), out.rbegin()) &&
      numel(s) <= kTileElems && numel(s) % 8 == 0)
    return std::make_pair(Bcast::kRow, static_cast<uint32_t>(numel(s)));
  // One value per row: small is out with its last dimension 1.
  if (small.size() == out.size() && small.back() == 1 && out.back() <= kTileElems &&
      out.back() % 8 == 0 && std::equal(small.begin(), small.end() - 1, out.begin()))
    return std::make_pair(Bcast::kPerRow, static_cast<uint32_t>(out.back()));
  return std::nullopt;
}

}  // namespace

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::optional<Plan> plan_elementwise(const LibOp& op, std::string* why) {
  uint64_t total = static_cast<uint64_t>(numel(op.out));
  if (total == 0 || total > UINT32_MAX) {
    *why = "an empty or too large output";
    return std::nullopt;
  }
  if (op.in.size() == 1 && numel(op.in[0]) == static_cast<int64_t>(total)) {
    if (auto it = recipes().find(op.op); it != recipes().end()) {
      Named r = it->second;
      // The op's own numbers where it takes them (leaky_relu's slope, clamp's bounds).
      if (op.op == "leaky_relu" && !op.scalars.empty()) r.steps[0].second = op.scalars[0];
      if ((op.op == "clamp" || op.op == "hardtanh") && op.scalars.size() >= 2) {
        r.steps[0].second = static_cast<float>(op.scalars[0]);
        r.steps[1].second = static_cast<float>(op.scalars[1]);
      }
      if (op.op == "elu" && !op.scalars.empty()) r.steps[3].second = op.scalars[0];
      return map_plan(op.op, r, total);
    }
    if (op.scalars.size() == 1)
      if (auto r = scalar_recipe(op.op, op.scalars[0])) return map_plan(op.op, *r, total);
  }
  if (op.in.size() == 2) {
    int32_t code = bin_code(op.op);
    if (code < 0) {
      *why = "no binary kernel for " + op.op;
      return std::nullopt;
    }
    bool a_full = numel(op.in[0]) == static_cast<int64_t>(total);
    const auto& small = a_full ? op.in[1] : op.in[0];
    if (!a_full && numel(op.in[1]) != static_cast<int64_t>(total)) {
      *why = "both operands broadcast";
      return std::nullopt;
    }
    auto bc = broadcast_of(small, op.out);
    if (!bc) {
      *why = "a broadcast the library's binary kernel does not cover";
      return std::nullopt;
    }
    BinTiling t{};
    t.total = static_cast<uint32_t>(total);
    t.op = code;
    t.bcast = static_cast<int32_t>(bc->first);
    t.row = bc->second;
    t.swapped = a_full ? 0 : 1;
    // A tile holds whole rows when the broadcast goes by rows.
    t.tile = t.row ? kTileElems / t.row * t.row : kTileElems;
    uint32_t cores = 1;
    split(total, &cores, &t.per_core);
    if (t.row) {  // whole rows per core
      uint64_t rows = total / t.row, per = (rows + cores - 1) / cores;
      t.per_core = static_cast<uint32_t>(per * t.row);
      cores = static_cast<uint32_t>((rows + per - 1) / per);
    }
    return Plan{"eager_binary(" + op.op + ")",
                [t, cores, a_full](const std::vector<uint64_t>& in, uint64_t out) {
                  uint64_t full = a_full ? in[0] : in[1], other = a_full ? in[1] : in[0];
                  ACLRT_LAUNCH_KERNEL(eager_binary)
                  (cores, nullptr, reinterpret_cast<GM_ADDR>(full),
                   reinterpret_cast<GM_ADDR>(other), reinterpret_cast<GM_ADDR>(out), t);
                }};
  }
  *why = "no elementwise kernel for " + op.op;
  return std::nullopt;
}

}  // namespace evk::runner::ascendc::eager
