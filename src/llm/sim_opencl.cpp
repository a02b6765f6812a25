// The offline coder's OpenCL generator: reads the fx op list and the tensor list from the
// prompt and writes a kernel.cpp for the opencl backend (knowledge/opencl/guide.md): one
// R"evk_cl( program string plus host code on the evk_cl helper. It covers what a first
// OpenCL draft usually meets: an elementwise chain over one input (scalar, same-shape or
// trailing-broadcast tensor operands), a row operation over the last dimension (softmax,
// log_softmax, LayerNorm), a reduction over one dimension (sum, mean, amax, amin) and a product
// (matmul, mm, nn.Linear), each with an elementwise epilogue fused into its store. Anything
// else is reported as an op without a template. Cold-start pitfalls of the shared table are
// written into the code where the plan names them, with `// evk-pitfall: NAME` markers.
// Refining moves: simd (float4 loads for elementwise chains), reorder (one work-item per row
// instead of a __local tree reduction), tile (16x16 __local tiles for products), omp (larger
// work-groups).
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "llm/sim_internal.h"

namespace evk::sim {
namespace {

std::string flt(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  std::string t = s.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
  return t + "f";
}

double kwnum(const FxOp& op, const char* name, double def) {
  const Py* x = op.kind == "call_module" ? op.module.get(name) : op.kwargs.get(name);
  if (!x && op.kind != "call_module" && op.args.items.size() > 1 && op.args.items[1].is_num())
    x = &op.args.items[1];
  return x && x->is_num() ? x->num() : def;
}

// Unary elementwise ops as OpenCL C expressions of v.
std::optional<std::string> unary(const std::string& t, const FxOp& op, const std::string& v) {
  if (t == "relu") return "fmax(" + v + ", 0.0f)";
  if (t == "relu6") return "fmin(fmax(" + v + ", 0.0f), 6.0f)";
  if (t == "sigmoid") return "1.0f / (1.0f + exp(-" + v + "))";
  if (t == "tanh") return "tanh(" + v + ")";
  if (t == "silu") return v + " / (1.0f + exp(-" + v + "))";
  if (t == "exp") return "exp(" + v + ")";
  if (t == "abs") return "fabs(" + v + ")";
  if (t == "neg") return "(-" + v + ")";
  if (t == "sqrt") return "sqrt(" + v + ")";
  if (t == "softsign") return v + " / (1.0f + fabs(" + v + "))";
  if (t == "softplus") return "(" + v + " > 20.0f ? " + v + " : log1p(exp(" + v + ")))";
  if (t == "mish") return v + " * tanh(" + v + " > 20.0f ? " + v + " : log1p(exp(" + v + ")))";
  if (t == "hardsigmoid") return "fmin(fmax(" + v + " / 6.0f + 0.5f, 0.0f), 1.0f)";
  if (t == "hardswish") return v + " * fmin(fmax(" + v + " + 3.0f, 0.0f), 6.0f) / 6.0f";
  if (t == "leaky_relu")
    return "(" + v + " > 0.0f ? " + v + " : " + flt(kwnum(op, "negative_slope", 0.01)) + " * " + v +
           ")";
  if (t == "elu")
    return "(" + v + " > 0.0f ? " + v + " : " + flt(kwnum(op, "alpha", 1.0)) + " * (exp(" + v +
           ") - 1.0f))";
  if (t == "hardtanh")
    return "fmin(fmax(" + v + ", " + flt(kwnum(op, "min_val", -1.0)) + "), " +
           flt(kwnum(op, "max_val", 1.0)) + ")";
  if (t == "gelu") {
    const Py* a =
        op.kind == "call_module" ? op.module.get("approximate") : op.kwargs.get("approximate");
    if (a && a->kind == Py::kStr && a->s == "tanh")
      return "0.5f * " + v + " * (1.0f + tanh(0.7978845608f * (" + v + " + 0.044715f * " + v +
             " * " + v + " * " + v + ")))";
    return "0.5f * " + v + " * (1.0f + erf(" + v + " * 0.70710678f))";
  }
  return std::nullopt;
}

struct Operand {
  int input = -1;
  int64_t numel = 0;
  bool broadcast = false;
};

enum class Main { kElementwise, kRow, kReduce, kProduct };

class OpenClGen {
 public:
  OpenClGen(const PromptView& p, const Plan& plan) : p_(p), plan_(plan) {}

  GenResult run() {
    GenResult r;
    try {
      walk();
    } catch (const std::string& why) {
      r.ok = false;
      r.unknown_ops.push_back(why);
      r.code = "// The offline coder has no OpenCL template for: " + why + "\n";
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
  static int64_t numel(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  }
  const TensorLine* tensor(const std::string& name) const {
    for (const auto& t : p_.tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
  const TensorLine* input(int k) const {
    for (const auto& t : p_.tensors)
      if (!t.output && t.index == k) return &t;
    return nullptr;
  }
  int input_of(const Py& a) const {
    if (a.kind != Py::kName) return -2;
    auto it = placeholders_.find(a.s);
    return it == placeholders_.end() ? -2 : it->second;
  }
  bool is_main(const Py& a) const { return a.kind == Py::kName && a.s == main_node_; }
  const TensorLine* input_tensor(const Py& a, const std::string& node) const {
    const TensorLine* t = input(input_of(a));
    if (!t) throw std::string(node + " (its operand is not a forward input)");
    return t;
  }
  void start_main_from(const Py& a, const std::string& node) {
    if (main_node_.empty()) {
      src_ = input_of(a);
      if (src_ < 0) throw std::string(node + " (its operand is not a forward input)");
    } else if (!is_main(a)) {
      throw std::string(node + " (the graph branches)");
    }
    main_node_ = node;
  }

  void walk() {
    int next = 0;
    for (const auto& t : p_.tensors)
      if (t.output && t.index == 0) out_shape_ = t.shape;
    static const std::map<std::string, std::string> kMod = {{"ReLU", "relu"},
                                                            {"ReLU6", "relu6"},
                                                            {"Sigmoid", "sigmoid"},
                                                            {"Tanh", "tanh"},
                                                            {"SiLU", "silu"},
                                                            {"GELU", "gelu"},
                                                            {"Mish", "mish"},
                                                            {"Softsign", "softsign"},
                                                            {"Hardsigmoid", "hardsigmoid"},
                                                            {"Hardswish", "hardswish"},
                                                            {"LeakyReLU", "leaky_relu"},
                                                            {"ELU", "elu"},
                                                            {"Hardtanh", "hardtanh"},
                                                            {"Softplus", "softplus"},
                                                            {"Softmax", "softmax"},
                                                            {"LogSoftmax", "log_softmax"},
                                                            {"LayerNorm", "layer_norm"},
                                                            {"Linear", "linear"}};
    for (const FxOp& op : p_.ops) {
      if (op.kind == "placeholder") {
        placeholders_[op.name] = next++;
        continue;
      }
      if (op.kind == "output") {
        if (op.args.items.empty() || !is_main(op.args.items[0]))
          throw std::string("outputs other than one computed tensor");
        continue;
      }
      if (op.kind == "get_attr") throw std::string(op.name + " (get_attr)");
      std::string t = op.target;
      if (op.kind == "call_module") {
        auto it = kMod.find(op.module.s);
        t = it == kMod.end() ? "module:" + op.module.s : it->second;
      }
      const Py a0 = op.args.items.empty() ? Py{} : op.args.items[0];
      if (unary(t, op, "v")) {
        start_main_from(a0, op.name);
        chain_.push_back([t, op](const std::string& v, const std::string&) {
          return "(" + *unary(t, op, v) + ")";
        });
        ++feat_.ew_ops;
        feat_.uses_math = true;
        continue;
      }
      if (t == "add" || t == "sub" || t == "mul" || t == "truediv" || t == "div") {
        binary(op, t);
        ++feat_.ew_ops;
        continue;
      }
      if (!main_node_.empty()) throw std::string(op.name + " (" + t + " after other operators)");
      const TensorLine* x = input_tensor(a0, op.name);
      int rank = static_cast<int>(x->shape.size());
      if (t == "softmax" || t == "log_softmax") {
        int dim = static_cast<int>(kwnum(op, "dim", -1));
        if (dim != -1 && dim != rank - 1)
          throw std::string(op.name + " (softmax over a dimension other than the last)");
        main_ = Main::kRow;
        row_op_ = t;
      } else if (t == "layer_norm") {
        const TensorLine* w = tensor("param." + op.target + ".weight");
        const TensorLine* b = tensor("param." + op.target + ".bias");
        if (op.kind != "call_module" || !w || !b || w->shape.size() != 1)
          throw std::string(op.name +
                            " (LayerNorm without affine, functional or over several dims)");
        ln_w_ = w->index;
        ln_b_ = b->index;
        const Py* eps = op.module.get("eps");
        ln_eps_ = eps && eps->is_num() ? eps->num() : 1e-5;
        main_ = Main::kRow;
        row_op_ = t;
      } else if (t == "sum" || t == "mean" || t == "amax" || t == "amin") {
        const Py* d = op.kwargs.get("dim");
        if (!d && op.args.items.size() > 1) d = &op.args.items[1];
        if (!d) throw std::string(op.name + " (a reduction over every dimension)");
        int64_t dim = d->is_seq() ? (d->items.size() == 1 ? d->items[0].i : 1000) : d->i;
        if (dim < 0) dim += rank;
        if (dim < 0 || dim >= rank)
          throw std::string(op.name + " (a reduction over several dimensions)");
        red_dim_ = static_cast<int>(dim);
        red_op_ = t;
        main_ = Main::kReduce;
      } else if (t == "matmul" || t == "mm") {
        int kb = op.args.items.size() > 1 ? input_of(op.args.items[1]) : -2;
        if (kb < 0 || rank != 2 || !input(kb) || input(kb)->shape.size() != 2)
          throw std::string(op.name + " (a product that is not 2-D input @ input)");
        mm_b_ = kb;
        main_ = Main::kProduct;
      } else if (t == "linear") {
        const TensorLine* w = tensor("param." + op.target + ".weight");
        if (op.kind != "call_module" || rank != 2 || !w)
          throw std::string(op.name + " (functional or batched linear)");
        const TensorLine* b = tensor("param." + op.target + ".bias");
        mm_b_ = w->index;
        lin_bias_ = b ? b->index : -1;
        linear_ = true;
        main_ = Main::kProduct;
      } else {
        throw std::string(op.name + " (" + t + ")");
      }
      src_ = input_of(a0);
      main_node_ = op.name;
    }
    if (main_node_.empty()) throw std::string("a graph with no operator");
  }

  void binary(const FxOp& op, const std::string& t) {
    if (op.args.items.size() < 2) throw std::string(op.name + " (" + t + " arguments)");
    const Py &a = op.args.items[0], &b = op.args.items[1];
    std::string sym = t == "add" ? "+" : t == "sub" ? "-" : t == "mul" ? "*" : "/";
    bool left = is_main(a) || (main_node_.empty() && input_of(a) >= 0);
    const Py& mine = left ? a : b;
    const Py& other = left ? b : a;
    if (other.is_num()) {
      start_main_from(mine, op.name);
      std::string c = flt(other.num());
      chain_.push_back([=](const std::string& v, const std::string&) {
        return left ? "(" + v + " " + sym + " " + c + ")" : "(" + c + " " + sym + " " + v + ")";
      });
      return;
    }
    int k = input_of(other);
    const TensorLine* ot = input(k);
    if (!ot) throw std::string(op.name + " (" + t + " of two computed values)");
    start_main_from(mine, op.name);
    Operand o{k, numel(ot->shape), numel(ot->shape) != numel(out_shape_)};
    if (o.broadcast) {
      size_t r = ot->shape.size();
      if (r > out_shape_.size()) throw std::string(op.name + " (broadcast)");
      for (size_t d = 0; d < r; ++d)
        if (ot->shape[r - 1 - d] != out_shape_[out_shape_.size() - 1 - d] && o.numel != 1)
          throw std::string(op.name + " (broadcast over inner or leading size-1 dimensions)");
      feat_.has_broadcast = true;
    }
    operands_.push_back(o);
    std::string ptr = "t" + std::to_string(k);
    bool ignore = pit("broadcast_ignored");
    chain_.push_back([=](const std::string& v, const std::string& idx) {
      std::string e = o.broadcast && !ignore
                          ? ptr + "[(" + idx + ") % " + std::to_string(o.numel) + "]"
                          : ptr + "[" + idx + "]";
      return left ? "(" + v + " " + sym + " " + e + ")" : "(" + e + " " + sym + " " + v + ")";
    });
  }

  void set_features() {
    feat_.opencl = true;
    feat_.uses_math = feat_.uses_math || main_ == Main::kRow;
    if (p_.refine) {
      feat_.tileable = main_ == Main::kProduct;
      feat_.reorderable = main_ == Main::kRow;
      feat_.ew_ops = 0;  // chains are always fused into one kernel here
      return;
    }
    feat_.final_copy = main_ == Main::kElementwise;
    feat_.has_product = main_ == Main::kProduct;
    feat_.has_softmax = main_ == Main::kRow && row_op_ != "layer_norm";
    feat_.has_reduction = main_ == Main::kRow;
    feat_.accum_final = main_ == Main::kReduce && (red_op_ == "sum" || red_op_ == "mean");
    const TensorLine* x = input(src_);
    feat_.has_mean = main_ == Main::kReduce && red_op_ == "mean" && x &&
                     red_dim_ + 1 < static_cast<int>(x->shape.size()) &&
                     x->shape[red_dim_] != x->shape.back();
  }

  std::string epilogue(const std::string& v, const std::string& idx) const {
    std::string e = v;
    for (const auto& f : chain_) e = f(e, idx);
    return e;
  }
  std::string operand_params() const {
    std::string s;
    for (const auto& o : operands_) s += ", __global const float* t" + std::to_string(o.input);
    return s;
  }

  std::string program() const {
    std::ostringstream s;
    std::string bound = pit("off_by_one_write") ? "n - 1" : "n";
    switch (main_) {
      case Main::kElementwise:
        if (move("simd") && operands_.empty()) {
          // Four elements per work-item through vload4/vstore4; the tail (n % 4) by `fused`.
          s << "__kernel void fused4(__global const float* x, __global float* y, long n4) {\n"
            << "  long i = get_global_id(0);\n  if (i >= n4) return;\n"
            << "  float4 v = vload4(i, x);\n"
            << "  v.x = " << epilogue("v.x", "4 * i") << ";\n"
            << "  v.y = " << epilogue("v.y", "4 * i + 1") << ";\n"
            << "  v.z = " << epilogue("v.z", "4 * i + 2") << ";\n"
            << "  v.w = " << epilogue("v.w", "4 * i + 3") << ";\n"
            << "  vstore4(v, i, y);\n}\n\n";
        }
        s << "__kernel void fused(__global const float* x, __global float* y, long from, long n"
          << operand_params() << ") {\n"
          << "  long i = from + get_global_id(0);\n";
        s << "  if (i < " << bound << ") y[i] = " << epilogue("x[i]", "i") << ";\n}\n";
        break;
      case Main::kRow:
        s << row_program();
        break;
      case Main::kReduce: {
        std::string init = red_op_ == "amax"   ? "-INFINITY"
                           : red_op_ == "amin" ? "INFINITY"
                                               : "0.0f";
        std::string acc = pit("no_init_reduction") && feat_.accum_final ? "y[g]" : "s";
        std::string upd = red_op_ == "amax"   ? acc + " = fmax(" + acc + ", p[r * inner]);"
                          : red_op_ == "amin" ? acc + " = fmin(" + acc + ", p[r * inner]);"
                                              : acc + " += p[r * inner];";
        std::string count = pit("mean_wrong_count") && feat_.has_mean ? "last" : "reduce";
        s << "__kernel void reduce_dim(__global const float* x, __global float* y, long reduce, "
             "long inner, "
             "long last, long n"
          << operand_params() << ") {\n"
          << "  long g = get_global_id(0);\n  if (g >= n) return;\n"
          << "  __global const float* p = x + (g / inner) * reduce * inner + g % inner;\n";
        if (acc == "s") s << "  float s = " << init << ";\n";
        s << "  for (long r = 0; r < reduce; ++r) " << upd << "\n";
        std::string v = acc;
        if (red_op_ == "mean") v = "(" + acc + " / (float)" + count + ")";
        s << "  y[g] = " << epilogue(v, "g") << ";\n}\n";
        break;
      }
      case Main::kProduct:
        s << product_program();
        break;
    }
    return s.str();
  }

  std::string row_program() const {
    std::ostringstream s;
    bool ln = row_op_ == "layer_norm";
    std::string params = ln ? ", __global const float* w, __global const float* b" : "";
    std::string shift = pit("softmax_no_max_shift") ? "" : " - m";
    auto store = [&](const std::string& c) {
      std::string v = ln ? "(xr[" + c + "] - mean) * inv * w[" + c + "] + b[" + c + "]"
                      : row_op_ == "softmax" ? "exp(xr[" + c + "]" + shift + ") * inv"
                                             : "xr[" + c + "]" + shift + " - lse";
      return "yr[" + c + "] = " + epilogue(v, "row * cols + " + c) + ";";
    };
    std::string eps = flt(ln_eps_);
    if (move("reorder")) {
      // One work-item per row: plain loops, no __local memory and no barriers.
      s << "__kernel void row_op(__global const float* x, __global float* y, long rows, long cols"
        << params << operand_params() << ") {\n"
        << "  long row = get_global_id(0);\n  if (row >= rows) return;\n"
        << "  __global const float* xr = x + row * cols;\n  __global float* yr = y + row * cols;\n";
      if (ln) {
        s << "  float mean = 0.0f;\n  for (long c = 0; c < cols; ++c) mean += xr[c];\n  mean /= "
             "cols;\n"
          << "  float var = 0.0f;\n  for (long c = 0; c < cols; ++c) { float d = xr[c] - mean; var "
             "+= d * d; }\n"
          << "  float inv = rsqrt(var / cols + " << eps << ");\n";
      } else {
        s << "  float m = -INFINITY;\n  for (long c = 0; c < cols; ++c) m = fmax(m, xr[c]);\n"
          << "  float sum = 0.0f;\n  for (long c = 0; c < cols; ++c) sum += exp(xr[c]" << shift
          << ");\n"
          << "  float inv = 1.0f / sum, lse = log(sum);\n";
      }
      s << "  for (long c = 0; c < cols; ++c) " << store("c") << "\n}\n";
      return s.str();
    }
    // A work-group of 64 per row, tree reductions in __local memory.
    std::string bar = pit("ocl_missing_barrier") ? "" : "    barrier(CLK_LOCAL_MEM_FENCE);\n";
    auto reduce = [&](const std::string& var, bool is_max) {
      std::ostringstream r;
      r << "  red[lid] = " << var << ";\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
        << "  for (int s = WG / 2; s > 0; s >>= 1) {\n"
        << "    if (lid < s) red[lid] = "
        << (is_max ? "fmax(red[lid], red[lid + s])" : "red[lid] + red[lid + s]") << ";\n"
        << bar << "  }\n  " << var << " = red[0];\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
      return r.str();
    };
    s << "#define WG 64\n"
      << "__kernel void row_op(__global const float* x, __global float* y, long rows, long cols"
      << params << operand_params() << ") {\n"
      << "  __local float red[WG];\n  long row = get_group_id(0);\n  int lid = get_local_id(0);\n"
      << "  __global const float* xr = x + row * cols;\n  __global float* yr = y + row * cols;\n";
    if (ln) {
      s << "  float mean = 0.0f;\n  for (long c = lid; c < cols; c += WG) mean += xr[c];\n"
        << reduce("mean", false) << "  mean /= cols;\n"
        << "  float var = 0.0f;\n  for (long c = lid; c < cols; c += WG) { float d = xr[c] - mean; "
           "var += d * d; }\n"
        << reduce("var", false) << "  float inv = rsqrt(var / cols + " << eps << ");\n";
    } else {
      s << "  float m = -INFINITY;\n  for (long c = lid; c < cols; c += WG) m = fmax(m, xr[c]);\n"
        << reduce("m", true)
        << "  float sum = 0.0f;\n  for (long c = lid; c < cols; c += WG) sum += exp(xr[c]" << shift
        << ");\n"
        << reduce("sum", false) << "  float inv = 1.0f / sum, lse = log(sum);\n";
    }
    s << "  for (long c = lid; c < cols; c += WG) " << store("c") << "\n}\n";
    return s.str();
  }

  std::string product_program() const {
    std::ostringstream s;
    bool tr = pit("transposed_weight");
    // B element (p, col): matmul reads b[p][col] of [k, n]; Linear reads w[col][p] of [n, k].
    std::string bidx = linear_ != tr ? "col * k + p" : "p * n + col";
    std::string bias = lin_bias_ >= 0 ? ", __global const float* bias" : "";
    std::string v = lin_bias_ >= 0 ? "(acc + bias[col])" : "acc";
    s << "__kernel void matmul(__global const float* a, __global const float* b, __global float* "
         "c, long m, "
         "long n, long k"
      << bias << operand_params() << ") {\n";
    if (move("tile")) {
      s << "#define T 16\n"
        << "  __local float ta[T][T], tb[T][T];\n"
        << "  int tx = get_local_id(0), ty = get_local_id(1);\n"
        << "  long col = get_global_id(0), row = get_global_id(1);\n"
        << "  float acc = 0.0f;\n"
        << "  for (long t = 0; t < k; t += T) {\n"
        << "    ta[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;\n"
        << "    tb[ty][tx] = (t + ty < k && col < n) ? "
        << (linear_ != tr ? "b[col * k + t + ty]" : "b[(t + ty) * n + col]") << " : 0.0f;\n"
        << "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        << "    for (int p = 0; p < T; ++p) acc += ta[ty][p] * tb[p][tx];\n"
        << "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n"
        << "  if (row < m && col < n) c[row * n + col] = " << epilogue(v, "row * n + col")
        << ";\n}\n";
      return s.str();
    }
    s << "  long col = get_global_id(0), row = get_global_id(1);\n"
      << "  if (row >= m || col >= n) return;\n"
      << "  float acc = 0.0f;\n"
      << "  for (long p = 0; p < k; ++p) acc += a[row * k + p] * b[" << bidx << "];\n"
      << "  c[row * n + col] = " << epilogue(v, "row * n + col") << ";\n}\n";
    return s.str();
  }

  // Host code: buffers, arguments, launches; nothing else (the static gate's rules).
  std::string host() const {
    std::ostringstream s;
    int local = move("omp") ? 256 : 64;
    std::string ops;
    for (const auto& o : operands_) ops += ", t" + std::to_string(o.input);
    for (const auto& o : operands_)
      s << "  evk_cl::Buffer t" << o.input << "(rt, in[" << o.input << "], CL_MEM_READ_ONLY);\n";
    s << "  evk_cl::Buffer x(rt, in[" << src_
      << "], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);\n";
    // The size passed as cl_int where the kernel declares `long` (a 4-byte argument for an
    // 8-byte parameter): clSetKernelArg answers CL_INVALID_ARG_SIZE.
    std::string size_t_name = pit("ocl_arg_type_mismatch") ? "cl_int" : "cl_long";
    switch (main_) {
      case Main::kElementwise: {
        s << "  " << size_t_name << " n = evk_cl::numel(out[0]);\n";
        if (move("simd") && operands_.empty()) {
          s << "  cl_kernel k4 = evk_cl::kernel(rt, \"fused4\");\n"
            << "  cl_long n4 = n / 4, from = n4 * 4;\n"
            << "  EVK_CL_CHECK(evk_cl::set_args(k4, x, y, n4));\n"
            << "  EVK_CL_CHECK(evk_cl::launch(rt, k4, n4, " << local << "));\n"
            << "  if (from < n) {\n"
            << "    EVK_CL_CHECK(evk_cl::set_args(k, x, y, from, n));\n"
            << "    EVK_CL_CHECK(evk_cl::launch(rt, k, n - from, 4));\n  }\n";
        } else {
          s << "  cl_long from = 0;\n"
            << "  EVK_CL_CHECK(evk_cl::set_args(k, x, y, from, n" << ops << "));\n";
          if (pit("ocl_global_not_rounded"))
            s << "  size_t global = n, group = " << local << ";\n"
              << "  EVK_CL_CHECK(clEnqueueNDRangeKernel(rt.queue, k, 1, nullptr, &global, &group, "
                 "0, nullptr, nullptr));\n";
          else
            s << "  EVK_CL_CHECK(evk_cl::launch(rt, k, n, " << local << "));\n";
        }
        break;
      }
      case Main::kRow: {
        bool ln = row_op_ == "layer_norm";
        if (ln)
          s << "  evk_cl::Buffer w(rt, in[" << ln_w_ << "], CL_MEM_READ_ONLY), b(rt, in[" << ln_b_
            << "], CL_MEM_READ_ONLY);\n";
        s << "  " << size_t_name << " cols = evk_cl::dim(in[" << src_ << "], -1);\n"
          << "  cl_long rows = evk_cl::numel(in[" << src_ << "]) / cols;\n"
          << "  EVK_CL_CHECK(evk_cl::set_args(k, x, y, rows, cols" << (ln ? ", w, b" : "") << ops
          << "));\n";
        if (move("reorder"))
          s << "  EVK_CL_CHECK(evk_cl::launch(rt, k, rows, 16));\n";
        else
          s << "  EVK_CL_CHECK(evk_cl::launch(rt, k, rows * 64, 64));\n";
        break;
      }
      case Main::kReduce:
        s << "  " << size_t_name << " reduce = evk_cl::dim(in[" << src_ << "], " << red_dim_
          << ");\n"
          << "  cl_long inner = evk_cl::numel_range(in[" << src_ << "], " << red_dim_ + 1 << ");\n"
          << "  cl_long last = evk_cl::dim(in[" << src_ << "], -1);\n"
          << "  cl_long n = evk_cl::numel(out[0]);\n"
          << "  EVK_CL_CHECK(evk_cl::set_args(k, x, y, reduce, inner, last, n" << ops << "));\n"
          << "  EVK_CL_CHECK(evk_cl::launch(rt, k, n, " << local << "));\n";
        break;
      case Main::kProduct:
        s << "  evk_cl::Buffer b(rt, in[" << mm_b_ << "], CL_MEM_READ_ONLY);\n";
        if (lin_bias_ >= 0)
          s << "  evk_cl::Buffer bias(rt, in[" << lin_bias_ << "], CL_MEM_READ_ONLY);\n";
        s << "  " << size_t_name << " m = evk_cl::dim(in[" << src_ << "], 0);\n"
          << "  cl_long k_dim = evk_cl::dim(in[" << src_ << "], 1);\n"
          << "  cl_long n = evk_cl::dim(out[0], 1);\n"
          << "  EVK_CL_CHECK(evk_cl::set_args(k, x, b, y, m, n, k_dim"
          << (lin_bias_ >= 0 ? ", bias" : "") << ops << "));\n"
          << "  EVK_CL_CHECK(evk_cl::launch2d(rt, k, n, m, 16, 16));\n";
        break;
    }
    return s.str();
  }

  std::string kernel_name() const {
    switch (main_) {
      case Main::kElementwise:
        return "fused";
      case Main::kRow:
        return "row_op";
      case Main::kReduce:
        return "reduce_dim";
      case Main::kProduct:
        return "matmul";
    }
    return "fused";
  }

  std::string assemble() const {
    std::ostringstream s;
    // Only the pitfalls this generator writes into the code are marked (the shared table also
    // holds CPU-only ones, e.g. omp_collapse, that have no place in an OpenCL kernel).
    static const std::set<std::string> kWritten = {
        "missing_header",         "wrong_abi",           "missing_return",
        "off_by_one_write",       "transposed_weight",   "no_init_reduction",
        "softmax_no_max_shift",   "broadcast_ignored",   "mean_wrong_count",
        "ocl_global_not_rounded", "ocl_missing_barrier", "ocl_arg_type_mismatch"};
    for (const std::string& p : plan_.pitfalls)
      if (kWritten.count(p)) s << "// evk-pitfall: " << p << "\n";
    s << "// evk-sim-moves:";
    for (size_t k = 0; k < plan_.moves.size(); ++k) {
      s << (k ? "," : " ") << plan_.moves[k].first;
      if (plan_.moves[k].second) s << ":" << plan_.moves[k].second;
    }
    if (plan_.moves.empty()) s << " none";
    s << "\n// Written by evokernel's offline coder (sim) from OpenCL templates; not a language "
         "model.\n";
    if (!(pit("missing_header") && feat_.uses_math)) s << "#include \"evokernel/opencl.h\"\n";
    s << "\nstatic const char* kSource = R\"evk_cl(\n" << program() << ")evk_cl\";\n\n";
    if (pit("wrong_abi"))
      s << "extern \"C\" EVK_EXPORT int evk_forward(evk_tensor* in, int32_t n_in, evk_tensor* out, "
           "int32_t n_out) {\n";
    else
      s << "extern \"C\" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in, "
           "evk_tensor* out, "
           "int32_t n_out) {\n";
    s << "  if (n_in < " << n_inputs() << " || n_out < 1) return 1;\n"
      << "  evk_cl::Runtime& rt = evk_cl::runtime(kSource);\n"
      << "  if (!rt.ok()) return rt.fail();\n"
      << "  cl_kernel k = evk_cl::kernel(rt, \"" << kernel_name() << "\");\n"
      << host();
    if (pit("missing_return"))
      s << "  evk_cl::finish(rt, y);\n";
    else
      s << "  return evk_cl::finish(rt, y);\n";
    s << "}\n";
    return s.str();
  }

  int n_inputs() const {
    int n = src_ + 1;
    for (const auto& o : operands_) n = std::max(n, o.input + 1);
    for (int k : {mm_b_, lin_bias_, ln_w_, ln_b_}) n = std::max(n, k + 1);
    return n;
  }

  const PromptView& p_;
  const Plan& plan_;
  Features feat_;
  std::map<std::string, int> placeholders_;
  std::string main_node_;
  int src_ = -1;
  std::vector<int64_t> out_shape_;
  std::vector<std::function<std::string(const std::string&, const std::string&)>> chain_;
  std::vector<Operand> operands_;
  Main main_ = Main::kElementwise;
  std::string row_op_, red_op_;
  int red_dim_ = 0, mm_b_ = -1, lin_bias_ = -1, ln_w_ = -1, ln_b_ = -1;
  bool linear_ = false;
  double ln_eps_ = 1e-5;
};

}  // namespace

GenResult generate_opencl(const PromptView& p, const Plan& plan) {
  return OpenClGen(p, plan).run();
}

}  // namespace evk::sim
