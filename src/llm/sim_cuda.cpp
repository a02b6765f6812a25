// The offline coder's CUDA generator: reads the fx op list and the tensor list from the prompt
// and writes a kernel.cu for the CUDA ABI (device pointers, default stream). It covers the
// graphs a first CUDA draft usually meets: an elementwise chain over one input (with scalar
// or same-shape/trailing-broadcast tensor operands), a row operation over the last dimension
// (softmax, log_softmax, LayerNorm), a reduction over one dimension (sum, mean, amax, amin)
// and a product (matmul, mm, nn.Linear), each followed by an optional elementwise epilogue
// fused into its store. Anything else is reported as an op without a template, as the CPU
// generator does. Pitfalls from the shared table are written into the code where named.
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "llm/sim_internal.h"

namespace evk::sim {
namespace {

using Expr = std::function<std::string(const std::string& v, const std::string& idx)>;

std::string flt(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  std::string t = s.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
  return t + "f";
}

// The unary elementwise ops, as expressions of v (float) with their keyword arguments.
std::optional<std::string> unary(const std::string& t, const FxOp& op, const std::string& v,
                                 bool& math) {
  auto kw = [&](const char* name, double def) {
    const Py* x = op.kind == "call_module" ? op.module.get(name) : op.kwargs.get(name);
    if (!x && op.kind != "call_module" && op.args.items.size() > 1 && op.args.items[1].is_num())
      x = &op.args.items[1];
    return x && x->is_num() ? x->num() : def;
  };
  math = true;
  if (t == "relu") return "fmaxf(" + v + ", 0.0f)";
  if (t == "relu6") return "fminf(fmaxf(" + v + ", 0.0f), 6.0f)";
  if (t == "sigmoid") return "1.0f / (1.0f + expf(-" + v + "))";
  if (t == "tanh") return "tanhf(" + v + ")";
  if (t == "silu") return v + " / (1.0f + expf(-" + v + "))";
  if (t == "exp") return "expf(" + v + ")";
  if (t == "abs") return "fabsf(" + v + ")";
  if (t == "neg") return "(-" + v + ")";
  if (t == "sqrt") return "sqrtf(" + v + ")";
  if (t == "softsign") return v + " / (1.0f + fabsf(" + v + "))";
  if (t == "softplus") return "(" + v + " > 20.0f ? " + v + " : log1pf(expf(" + v + ")))";
  if (t == "mish") return v + " * tanhf(" + v + " > 20.0f ? " + v + " : log1pf(expf(" + v + ")))";
  if (t == "hardsigmoid") return "fminf(fmaxf(" + v + " / 6.0f + 0.5f, 0.0f), 1.0f)";
  if (t == "hardswish") return v + " * fminf(fmaxf(" + v + " + 3.0f, 0.0f), 6.0f) / 6.0f";
  if (t == "leaky_relu")
    return "(" + v + " > 0.0f ? " + v + " : " + flt(kw("negative_slope", 0.01)) + " * " + v + ")";
  if (t == "elu")
    return "(" + v + " > 0.0f ? " + v + " : " + flt(kw("alpha", 1.0)) + " * (expf(" + v +
           ") - 1.0f))";
  if (t == "hardtanh")
    return "fminf(fmaxf(" + v + ", " + flt(kw("min_val", -1.0)) + "), " + flt(kw("max_val", 1.0)) +
           ")";
  if (t == "gelu") {
    const Py* a =
        op.kind == "call_module" ? op.module.get("approximate") : op.kwargs.get("approximate");
    if (a && a->kind == Py::kStr && a->s == "tanh")
      return "0.5f * " + v + " * (1.0f + tanhf(0.7978845608f * (" + v + " + 0.044715f * " + v +
             " * " + v + " * " + v + ")))";
    return "0.5f * " + v + " * (1.0f + erff(" + v + " * 0.70710678f))";
  }
  math = false;
  return std::nullopt;
}

struct Operand {
  int input = -1;  // in[k]
  int64_t numel = 0;
  bool broadcast = false;  // a trailing-dims operand smaller than the main value
};

enum class Main { kElementwise, kRow, kReduce, kProduct };

class CudaGen {
 public:
  CudaGen(const PromptView& p, const Plan& plan) : p_(p), plan_(plan) {}

  GenResult run() {
    GenResult r;
    feat_.cuda = true;
    try {
      walk();
    } catch (const std::string& why) {
      r.ok = false;
      r.unknown_ops.push_back(why);
      r.code = "// The offline coder has no CUDA template for: " + why + "\n";
      r.features = feat_;
      return r;
    }
    set_features();
    r.code = assemble();
    r.features = feat_;
    return r;
  }

 private:
  bool pit(const char* n) const { return plan_.pitfalls.count(n) > 0; }
  bool move(const char* n) const { return plan_.has_move(n); }

  const TensorLine* tensor(const std::string& name) const {
    for (const auto& t : p_.tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
  static int64_t numel(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  }

  // Which value a node argument names: "main" or an input index.
  int input_of(const Py& arg) const {
    if (arg.kind != Py::kName) return -2;
    auto it = placeholders_.find(arg.s);
    return it == placeholders_.end() ? -2 : it->second;
  }
  bool is_main(const Py& arg) const { return arg.kind == Py::kName && arg.s == main_node_; }

  void start_main_from(const Py& arg, const std::string& node) {
    if (main_node_.empty()) {
      int k = input_of(arg);
      if (k < 0) throw std::string(node + " (its operand is not a forward input)");
      src_ = k;
    } else if (!is_main(arg)) {
      throw std::string(node + " (the graph branches)");
    }
    main_node_ = node;
  }

  void walk() {
    int next_input = 0;
    for (const auto& t : p_.tensors)
      if (t.output && t.index == 0) out_shape_ = t.shape;
    for (const FxOp& op : p_.ops) {
      if (op.kind == "placeholder") {
        placeholders_[op.name] = next_input++;
        continue;
      }
      if (op.kind == "output") {
        const Py& a = op.args.items.empty() ? Py{} : op.args.items[0];
        if (!is_main(a)) throw std::string("outputs other than one computed tensor");
        continue;
      }
      if (op.kind == "get_attr") throw std::string(op.name + " (get_attr)");
      std::string t = op.target;
      if (op.kind == "call_module") t = "module:" + op.module.s;
      static const std::map<std::string, std::string> kMod = {{"module:ReLU", "relu"},
                                                              {"module:ReLU6", "relu6"},
                                                              {"module:Sigmoid", "sigmoid"},
                                                              {"module:Tanh", "tanh"},
                                                              {"module:SiLU", "silu"},
                                                              {"module:GELU", "gelu"},
                                                              {"module:Mish", "mish"},
                                                              {"module:Softsign", "softsign"},
                                                              {"module:Hardsigmoid", "hardsigmoid"},
                                                              {"module:Hardswish", "hardswish"},
                                                              {"module:LeakyReLU", "leaky_relu"},
                                                              {"module:ELU", "elu"},
                                                              {"module:Hardtanh", "hardtanh"},
                                                              {"module:Softplus", "softplus"},
                                                              {"module:Softmax", "softmax"},
                                                              {"module:LogSoftmax", "log_softmax"},
                                                              {"module:LayerNorm", "layer_norm"},
                                                              {"module:Linear", "linear"}};
      if (auto it = kMod.find(t); it != kMod.end()) t = it->second;
      const Py& a0 = op.args.items.empty() ? Py{} : op.args.items[0];
      bool math = false;
      if (unary(t, op, "v", math)) {
        start_main_from(a0, op.name);
        uses_math_ = uses_math_ || math;
        chain_.push_back([t, op](const std::string& v, const std::string&) {
          bool m = false;
          return "(" + *unary(t, op, v, m) + ")";
        });
        continue;
      }
      if (t == "add" || t == "sub" || t == "mul" || t == "truediv" || t == "div") {
        binary(op, t);
        continue;
      }
      if (main_kind_ != Main::kElementwise || !chain_.empty() || !main_node_.empty())
        throw std::string(op.name + " (" + t + " after other operators)");
      if (t == "softmax" || t == "log_softmax") {
        int dim = static_cast<int>(op.kind == "call_module"
                                       ? (op.module.get("dim") ? op.module.get("dim")->num() : -1)
                                       : (op.kwargs.get("dim")       ? op.kwargs.get("dim")->num()
                                          : op.args.items.size() > 1 ? op.args.items[1].num()
                                                                     : -1));
        const TensorLine* x = input_tensor(a0, op.name);
        if (dim != -1 && dim != static_cast<int>(x->shape.size()) - 1)
          throw std::string(op.name + " (softmax over a dimension other than the last)");
        main_kind_ = Main::kRow;
        row_op_ = t;
      } else if (t == "layer_norm") {
        const TensorLine* x = input_tensor(a0, op.name);
        (void)x;
        if (op.kind != "call_module") throw std::string(op.name + " (functional layer_norm)");
        const TensorLine* w = tensor("param." + op.target + ".weight");
        const TensorLine* b = tensor("param." + op.target + ".bias");
        if (!w || !b || w->shape.size() != 1)
          throw std::string(op.name + " (LayerNorm without affine or over several dims)");
        ln_w_ = w->index;
        ln_b_ = b->index;
        const Py* eps = op.module.get("eps");
        ln_eps_ = eps && eps->is_num() ? eps->num() : 1e-5;
        main_kind_ = Main::kRow;
        row_op_ = "layer_norm";
      } else if (t == "sum" || t == "mean" || t == "amax" || t == "amin") {
        const TensorLine* x = input_tensor(a0, op.name);
        const Py* d = op.kwargs.get("dim");
        if (!d && op.args.items.size() > 1) d = &op.args.items[1];
        if (!d) throw std::string(op.name + " (a reduction over every dimension)");
        int64_t dim = d->is_seq() ? (d->items.size() == 1 ? d->items[0].i : 1000) : d->i;
        int rank = static_cast<int>(x->shape.size());
        if (dim < 0) dim += rank;
        if (dim < 0 || dim >= rank)
          throw std::string(op.name + " (a reduction over several dimensions)");
        red_dim_ = static_cast<int>(dim);
        red_op_ = t;
        main_kind_ = Main::kReduce;
      } else if (t == "matmul" || t == "mm") {
        const TensorLine* x = input_tensor(a0, op.name);
        int kb = op.args.items.size() > 1 ? input_of(op.args.items[1]) : -2;
        if (kb < 0 || x->shape.size() != 2)
          throw std::string(op.name + " (a product that is not 2-D input @ input)");
        mm_b_ = kb;
        main_kind_ = Main::kProduct;
      } else if (t == "linear") {
        const TensorLine* x = input_tensor(a0, op.name);
        if (op.kind != "call_module" || x->shape.size() != 2)
          throw std::string(op.name + " (functional or batched linear)");
        const TensorLine* w = tensor("param." + op.target + ".weight");
        const TensorLine* b = tensor("param." + op.target + ".bias");
        if (!w) throw std::string(op.name + " (Linear weight missing)");
        mm_b_ = w->index;
        lin_bias_ = b ? b->index : -1;
        linear_ = true;
        main_kind_ = Main::kProduct;
      } else {
        throw std::string(op.name + " (" + t + ")");
      }
      src_ = input_of(a0);
      main_node_ = op.name;
    }
    if (main_node_.empty()) throw std::string("a graph with no operator");
  }

  const TensorLine* input_tensor(const Py& a, const std::string& node) {
    int k = input_of(a);
    if (k < 0) throw std::string(node + " (its operand is not a forward input)");
    for (const auto& t : p_.tensors)
      if (!t.output && t.index == k) return &t;
    throw std::string(node + " (unknown input)");
  }

  void binary(const FxOp& op, const std::string& t) {
    if (op.args.items.size() < 2) throw std::string(op.name + " (" + t + " arguments)");
    const Py &a = op.args.items[0], &b = op.args.items[1];
    std::string sym = t == "add" ? "+" : t == "sub" ? "-" : t == "mul" ? "*" : "/";
    // The running value is the left operand unless the right one is it (or, first in the
    // graph, unless the left one is a constant).
    bool main_left = is_main(a) || (main_node_.empty() && input_of(a) >= 0);
    const Py& mine = main_left ? a : b;
    const Py& other = main_left ? b : a;
    if (other.is_num()) {
      start_main_from(mine, op.name);
      std::string c = flt(other.num());
      chain_.push_back([=](const std::string& v, const std::string&) {
        return main_left ? "(" + v + " " + sym + " " + c + ")"
                         : "(" + c + " " + sym + " " + v + ")";
      });
      return;
    }
    int k = input_of(other);
    if (k < 0) throw std::string(op.name + " (" + t + " of two computed values)");
    start_main_from(mine, op.name);
    const TensorLine* ot = nullptr;
    for (const auto& x : p_.tensors)
      if (!x.output && x.index == k) ot = &x;
    if (!ot) throw std::string(op.name + " (unknown operand)");
    Operand o{k, numel(ot->shape), numel(ot->shape) != numel(out_shape_)};
    // Only trailing-dimension broadcasts (a bias per column, a scalar tensor).
    if (o.broadcast) {
      size_t r = ot->shape.size();
      if (r > out_shape_.size()) throw std::string(op.name + " (broadcast)");
      for (size_t d = 0; d < r; ++d)
        if (ot->shape[r - 1 - d] != 1 &&
            ot->shape[r - 1 - d] != out_shape_[out_shape_.size() - 1 - d])
          throw std::string(op.name + " (broadcast over leading dimensions)");
      if (numel(ot->shape) != 1)
        for (size_t d = 0; d < r; ++d)
          if (ot->shape[r - 1 - d] == 1)
            throw std::string(op.name + " (broadcast with inner size-1 dims)");
      feat_.has_broadcast = true;
    }
    operands_.push_back(o);
    std::string ptr = "t" + std::to_string(k);
    bool ignore = pit("broadcast_ignored");
    chain_.push_back([=](const std::string& v, const std::string& idx) {
      std::string e = o.broadcast && !ignore
                          ? ptr + "[(" + idx + ") % " + std::to_string(o.numel) + "]"
                          : ptr + "[" + idx + "]";
      return main_left ? "(" + v + " " + sym + " " + e + ")" : "(" + e + " " + sym + " " + v + ")";
    });
  }

  void set_features() {
    feat_.uses_math = uses_math_ || main_kind_ == Main::kRow;
    if (p_.refine) {
      // Refining moves on CUDA: omp (grid-stride loops), simd (float4), tile (shared-memory
      // tiles for products). The CPU-only moves (fuse, notemps, reorder) never apply.
      feat_.tileable = main_kind_ == Main::kProduct;
      for (const auto& t : p_.tensors)
        if (t.output && main_kind_ == Main::kProduct)
          for (int64_t d : t.shape) feat_.tile_tail_bites = feat_.tile_tail_bites || d % 32 != 0;
      return;
    }
    feat_.final_copy = main_kind_ == Main::kElementwise;
    feat_.has_product = main_kind_ == Main::kProduct;
    feat_.has_softmax = main_kind_ == Main::kRow && row_op_ != "layer_norm";
    feat_.has_reduction = main_kind_ == Main::kRow;
    feat_.accum_final = main_kind_ == Main::kReduce && (red_op_ == "sum" || red_op_ == "mean");
    if (main_kind_ == Main::kReduce && red_op_ == "mean") {
      const TensorLine* x = nullptr;
      for (const auto& t : p_.tensors)
        if (!t.output && t.index == src_) x = &t;
      if (x && red_dim_ + 1 < static_cast<int>(x->shape.size()) &&
          x->shape[red_dim_] != x->shape.back())
        feat_.has_mean = true;
    }
  }

  std::string epilogue(const std::string& v, const std::string& idx) const {
    std::string e = v;
    for (const auto& f : chain_) e = f(e, idx);
    return e;
  }

  std::string operand_params() const {
    std::string s;
    for (const auto& o : operands_) s += ", const float* __restrict__ t" + std::to_string(o.input);
    return s;
  }
  std::string operand_args() const {
    std::string s;
    for (const auto& o : operands_)
      s += ", static_cast<const float*>(in[" + std::to_string(o.input) + "].data)";
    return s;
  }
  std::string threads(int normal) const {
    return pit("cuda_block_too_large") ? "2048" : std::to_string(normal);
  }
  // A 64 KiB static shared array: more than the 48 KiB a block may declare statically.
  std::string shared_overflow() const {
    if (!pit("cuda_shared_overflow")) return "";
    return "  __shared__ float stage[16384];  // the whole row at once\n"
           "  stage[threadIdx.x] = 0.0f;\n  __syncthreads();\n"
           "  if (stage[(threadIdx.x + 1) % blockDim.x] != 0.0f) return;\n";
  }
  std::string index_start() const {
    return pit("omp_collapse") ? "blockIdx.x * static_cast<int64_t>(blockDim.x)"
                               : "blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x";
  }

  std::string kernels() const {
    std::ostringstream s;
    std::string out_guard = pit("off_by_one_write") ? "n - 1" : "n";
    switch (main_kind_) {
      case Main::kElementwise:
        if (move("simd") && operands_.empty()) {
          s << "__global__ void fused4(const float4* __restrict__ x, float4* __restrict__ y, "
               "int64_t n4) {\n"
            << "  for (int64_t i = " << index_start() << "; i < n4;\n"
            << "       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {\n"
            << "    float4 v = x[i];\n"
            << "    v.x = " << epilogue("v.x", "4 * i") << ";\n"
            << "    v.y = " << epilogue("v.y", "4 * i + 1") << ";\n"
            << "    v.z = " << epilogue("v.z", "4 * i + 2") << ";\n"
            << "    v.w = " << epilogue("v.w", "4 * i + 3") << ";\n"
            << "    y[i] = v;\n  }\n}\n\n";
        }
        s << "__global__ void fused(const float* __restrict__ x, float* __restrict__ y, int64_t "
             "from, int64_t n"
          << operand_params() << ") {\n";
        if (move("omp"))
          s << "  for (int64_t i = from + " << index_start() << "; i < " << out_guard
            << "; i += static_cast<int64_t>(gridDim.x) * blockDim.x)\n";
        else
          s << "  const int64_t i = from + " << index_start() << ";\n  if (i < " << out_guard
            << ")\n";
        s << "    y[i] = " << epilogue("x[i]", "i") << ";\n}\n";
        break;
      case Main::kRow: {
        bool race = pit("parallel_reduction_race");
        s << "constexpr int kThreads = 256;\n\n"
          << "__device__ float block_reduce(float v, bool is_max, float* smem) {\n"
          << "  for (int o = 16; o > 0; o >>= 1) {\n"
          << "    const float w = __shfl_xor_sync(0xffffffffu, v, o);\n"
          << "    v = is_max ? fmaxf(v, w) : v + w;\n  }\n"
          << "  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;\n"
          << (race ? "" : "  __syncthreads();\n") << "  float r = smem[0];\n"
          << "  for (int w = 1; w < kThreads / 32; ++w) r = is_max ? fmaxf(r, smem[w]) : r + "
             "smem[w];\n"
          << "  __syncthreads();  // smem is reused by the next reduction\n"
          << "  return r;\n}\n\n";
        std::string params = row_op_ == "layer_norm"
                                 ? ", const float* __restrict__ w, const float* __restrict__ b"
                                 : "";
        s << "__global__ void row_op(const float* __restrict__ x, float* __restrict__ y, int64_t "
             "cols"
          << params << operand_params() << ") {\n"
          << "  __shared__ float smem[32];\n"
          << shared_overflow() << "  const float* row = x + blockIdx.x * cols;\n"
          << "  float* dst = y + blockIdx.x * cols;\n";
        std::string idx = "blockIdx.x * cols + j";
        if (row_op_ == "layer_norm") {
          s << "  float s = 0.0f;\n"
            << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) s += row[j];\n"
            << "  const float mean = block_reduce(s, false, smem) / static_cast<float>(cols);\n"
            << "  float q = 0.0f;\n"
            << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) q += (row[j] - mean) * "
               "(row[j] - mean);\n"
            << "  const float rstd = rsqrtf(block_reduce(q, false, smem) / "
               "static_cast<float>(cols) + "
            << flt(ln_eps_) << ");\n"
            << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads)\n"
            << "    dst[j] = " << epilogue("((row[j] - mean) * rstd * w[j] + b[j])", idx) << ";\n";
        } else {
          bool no_shift = pit("softmax_no_max_shift");
          if (no_shift) {
            s << "  const float m = 0.0f;\n";
          } else {
            s << "  float m = -INFINITY;\n"
              << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) m = fmaxf(m, row[j]);\n"
              << "  m = block_reduce(m, true, smem);\n";
          }
          s << "  float s = 0.0f;\n"
            << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) s += expf(row[j] - m);\n"
            << "  s = block_reduce(s, false, smem);\n";
          std::string v =
              row_op_ == "log_softmax" ? "(row[j] - m - logf(s))" : "(expf(row[j] - m) / s)";
          s << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) dst[j] = "
            << epilogue(v, idx) << ";\n";
        }
        s << "}\n";
        break;
      }
      case Main::kReduce: {
        s << "__global__ void reduce_dim(const float* __restrict__ x, float* __restrict__ y, "
             "int64_t outer,\n"
          << "                           int64_t reduced, int64_t inner" << operand_params()
          << ") {\n"
          << shared_overflow() << "  const int64_t o = " << index_start() << ";\n"
          << "  if (o >= outer * inner) return;\n"
          << "  const float* p = x + (o / inner) * reduced * inner + o % inner;\n";
        std::string init = red_op_ == "amax"   ? "-INFINITY"
                           : red_op_ == "amin" ? "INFINITY"
                                               : "0.0f";
        std::string step = red_op_ == "amax"   ? "acc = fmaxf(acc, p[r * inner]);"
                           : red_op_ == "amin" ? "acc = fminf(acc, p[r * inner]);"
                                               : "acc += p[r * inner];";
        if (pit("no_init_reduction") && feat_.accum_final) {
          s << "  for (int64_t r = 0; r < reduced; ++r) y[o] += p[r * inner];\n";
          s << "  float acc = y[o];\n";
        } else {
          s << "  float acc = " << init << ";\n  for (int64_t r = 0; r < reduced; ++r) " << step
            << "\n";
        }
        if (red_op_ == "mean")
          s << "  acc /= static_cast<float>(" << (pit("mean_wrong_count") ? "inner" : "reduced")
            << ");\n";
        s << "  y[o] = " << epilogue("acc", "o") << ";\n}\n";
        break;
      }
      case Main::kProduct: {
        bool t_w = pit("transposed_weight");
        // B[k][n]: matmul reads b[k * n + col]; linear reads W[col][k] = w[col * K + k].
        auto b_at = [&](const std::string& kk, const std::string& col) {
          bool as_linear = linear_ != t_w;
          return as_linear ? "b[static_cast<int64_t>(" + col + ") * k + " + kk + "]"
                           : "b[static_cast<int64_t>(" + kk + ") * n + " + col + "]";
        };
        std::string bias = lin_bias_ >= 0 ? ", const float* __restrict__ bias" : "";
        std::string add_bias = lin_bias_ >= 0 ? " + bias[col]" : "";
        if (move("tile")) {
          bool tail = pit("tile_tail");
          s << "constexpr int kTile = 32;\n\n"
            << "__global__ void product(const float* __restrict__ a, const float* __restrict__ b,\n"
            << "                        float* __restrict__ c, int m, int n, int k" << bias
            << operand_params() << ") {\n"
            << "  __shared__ float as[kTile][kTile + 1];\n  __shared__ float bs[kTile][kTile + "
               "1];\n"
            << shared_overflow() << "  const int tx = threadIdx.x, ty = threadIdx.y;\n"
            << "  const int row0 = blockIdx.y * kTile, col = blockIdx.x * kTile + tx;\n"
            << "  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n"
            << "  for (int k0 = 0; k0 < k; k0 += kTile) {\n"
            << "    for (int r = ty; r < kTile; r += 8) {\n"
            << "      const int ar = row0 + r, ac = k0 + tx, br = k0 + r;\n";
          if (tail)
            s << "      as[r][tx] = a[static_cast<int64_t>(ar) * k + ac];\n"
              << "      bs[r][tx] = " << b_at("br", "col") << ";\n";
          else
            s << "      as[r][tx] = ar < m && ac < k ? a[static_cast<int64_t>(ar) * k + ac] : "
                 "0.0f;\n"
              << "      bs[r][tx] = br < k && col < n ? " << b_at("br", "col") << " : 0.0f;\n";
          s << "    }\n    __syncthreads();\n"
            << "    for (int kk = 0; kk < kTile; ++kk)\n"
            << "      for (int i = 0; i < 4; ++i) acc[i] += as[ty + 8 * i][kk] * bs[kk][tx];\n"
            << "    __syncthreads();\n  }\n"
            << "  for (int i = 0; i < 4; ++i) {\n"
            << "    const int r = row0 + ty + 8 * i;\n"
            << "    if (r < m && col < n) c[static_cast<int64_t>(r) * n + col] = "
            << epilogue("(acc[i]" + add_bias + ")", "static_cast<int64_t>(r) * n + col") << ";\n"
            << "  }\n}\n";
        } else {
          s << "__global__ void product(const float* __restrict__ a, const float* __restrict__ b,\n"
            << "                        float* __restrict__ c, int m, int n, int k" << bias
            << operand_params() << ") {\n"
            << shared_overflow() << "  const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
            << "  const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
            << "  if (row >= m || col >= n) return;\n"
            << "  float acc = 0.0f;\n"
            << "  for (int kk = 0; kk < k; ++kk) acc += a[static_cast<int64_t>(row) * k + kk] * "
            << b_at("kk", "col") << ";\n"
            << "  c[static_cast<int64_t>(row) * n + col] = "
            << epilogue("(acc" + add_bias + ")", "static_cast<int64_t>(row) * n + col") << ";\n}\n";
        }
        break;
      }
    }
    return s.str();
  }

  std::string launch() const {
    std::ostringstream s;
    std::string x = "static_cast<const float*>(in[" + std::to_string(src_) + "].data)";
    std::string y = "static_cast<float*>(out[0].data)";
    if (pit("cuda_host_deref"))
      s << "  // Reject NaN inputs up front.\n"
        << "  if (" << x << "[0] != " << x << "[0]) return 3;\n";
    switch (main_kind_) {
      case Main::kElementwise: {
        s << "  const int64_t n = evk_numel(&out[0]);\n  if (n == 0) return 0;\n";
        std::string grid = move("omp") ? "blocks < 4096 ? blocks : 4096" : "blocks";
        if (move("simd") && operands_.empty()) {
          s << "  const int64_t n4 = n / 4;  // cudaMalloc'd buffers are 256-byte aligned\n"
            << "  if (n4 > 0) {\n"
            << "    const int64_t blocks = (n4 + 255) / 256;\n"
            << "    fused4<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), " << threads(256)
            << ">>>(\n"
            << "        reinterpret_cast<const float4*>(" << x << "), reinterpret_cast<float4*>("
            << y << "), n4);\n"
            << "  }\n"
            << "  if (n > 4 * n4) fused<<<1, 4>>>(" << x << ", " << y << ", 4 * n4, n);\n";
        } else {
          s << "  const int64_t blocks = (n + 255) / 256;\n"
            << "  fused<<<static_cast<unsigned>(" << grid << "), " << threads(256) << ">>>(" << x
            << ", " << y << ", 0, n" << operand_args() << ");\n";
        }
        break;
      }
      case Main::kRow: {
        s << "  const int64_t cols = in[" << src_ << "].shape[in[" << src_ << "].ndim - 1];\n"
          << "  const int64_t rows = cols > 0 ? evk_numel(&in[" << src_ << "]) / cols : 0;\n"
          << "  if (rows == 0) return 0;\n"
          << "  row_op<<<static_cast<unsigned>(rows), " << threads(256) << ">>>(" << x << ", " << y
          << ", cols";
        if (row_op_ == "layer_norm")
          s << ", static_cast<const float*>(in[" << ln_w_
            << "].data), static_cast<const float*>(in[" << ln_b_ << "].data)";
        s << operand_args() << ");\n";
        break;
      }
      case Main::kReduce: {
        s << "  const evk_tensor& t = in[" << src_ << "];\n"
          << "  int64_t outer = 1, inner = 1;\n"
          << "  for (int d = 0; d < " << red_dim_ << "; ++d) outer *= t.shape[d];\n"
          << "  for (int d = " << red_dim_ + 1 << "; d < t.ndim; ++d) inner *= t.shape[d];\n"
          << "  const int64_t reduced = t.shape[" << red_dim_ << "], n = outer * inner;\n"
          << "  if (n == 0) return 0;\n"
          << "  reduce_dim<<<static_cast<unsigned>((n + 255) / 256), " << threads(256) << ">>>("
          << x << ", " << y << ", outer, reduced, inner" << operand_args() << ");\n";
        break;
      }
      case Main::kProduct: {
        s << "  const int m = static_cast<int>(in[" << src_ << "].shape[0]);\n"
          << "  const int k = static_cast<int>(in[" << src_ << "].shape[1]);\n"
          << "  const int n = static_cast<int>(out[0].shape[1]);\n"
          << "  if (m == 0 || n == 0) return 0;\n";
        if (move("tile"))
          s << "  dim3 block(32, " << (pit("cuda_block_too_large") ? "64" : "8")
            << "), grid((n + 31) / 32, (m + 31) / 32);\n";
        else
          s << "  dim3 block(16, " << (pit("cuda_block_too_large") ? "128" : "16")
            << "), grid((n + 15) / 16, (m + 15) / 16);\n";
        s << "  product<<<grid, block>>>(" << x << ", static_cast<const float*>(in[" << mm_b_
          << "].data), " << y << ", m, n, k";
        if (lin_bias_ >= 0) s << ", static_cast<const float*>(in[" << lin_bias_ << "].data)";
        s << operand_args() << ");\n";
        break;
      }
    }
    s << "  if (cudaGetLastError() != cudaSuccess) return 2;\n";
    return s.str();
  }

  std::string assemble() const {
    std::ostringstream s;
    for (const std::string& p : plan_.pitfalls) s << "// evk-pitfall: " << p << "\n";
    s << "// evk-sim-moves:";
    for (size_t k = 0; k < plan_.moves.size(); ++k) {
      s << (k ? "," : " ") << plan_.moves[k].first;
      if (plan_.moves[k].second) s << ":" << plan_.moves[k].second;
    }
    if (plan_.moves.empty()) s << " none";
    s << "\n// Written by evokernel's offline coder (sim) from CUDA templates; not a language "
         "model.\n";
    if (!(pit("missing_header") && feat_.uses_math)) s << "#include \"evokernel/kernel_abi.h\"\n";
    s << "#include <cmath>\n#include <cstdint>\n\nnamespace {\n\n"
      << kernels() << "\n}  // namespace\n\n";
    if (pit("wrong_abi"))
      s << "extern \"C\" int evk_forward(evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t "
           "n_out) {\n";
    else
      s << "extern \"C\" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, "
           "int32_t n_out) {\n";
    s << "  if (n_in < " << n_inputs() << " || n_out < 1) return 1;\n" << launch();
    if (!pit("missing_return")) s << "  return 0;\n";
    s << "}\n";
    return s.str();
  }

  int n_inputs() const {
    int n = 0;
    for (const auto& t : p_.tensors) n += !t.output;
    return n;
  }

  const PromptView& p_;
  const Plan& plan_;
  Features feat_;
  std::map<std::string, int> placeholders_;
  std::string main_node_;
  Main main_kind_ = Main::kElementwise;
  int src_ = 0;
  std::vector<Expr> chain_;
  std::vector<Operand> operands_;
  std::vector<int64_t> out_shape_;
  bool uses_math_ = false;
  std::string row_op_, red_op_;
  int red_dim_ = 0;
  int ln_w_ = -1, ln_b_ = -1;
  double ln_eps_ = 1e-5;
  int mm_b_ = -1, lin_bias_ = -1;
  bool linear_ = false;
};

}  // namespace

GenResult generate_cuda(const PromptView& p, const Plan& plan) {
  return CudaGen(p, plan).run();
}

}  // namespace evk::sim
