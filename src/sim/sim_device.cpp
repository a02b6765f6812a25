// The graph reading both device generators share (see sim_device.h).
#include "sim/sim_device.h"

#include <sstream>

namespace evk::sim {

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

namespace {

// lo <= v <= hi by comparisons, so that a NaN stays NaN as in PyTorch (fmin/fmax drop it).
std::string clamped(const std::string& v, const std::string& lo, const std::string& hi) {
  return "(" + v + " < " + lo + " ? " + lo + " : (" + v + " > " + hi + " ? " + hi + " : " + v + "))";
}

// The ops whose expression has a parameter or a variant.
std::optional<std::string> unary_with_args(const std::string& t, const FxOp& op,
                                           const std::string& v, const std::string& f) {
  if (t == "leaky_relu")
    return "(" + v + " > 0.0f ? " + v + " : " + flt(kwnum(op, "negative_slope", 0.01)) + " * " + v +
           ")";
  if (t == "elu")
    return "(" + v + " > 0.0f ? " + v + " : " + flt(kwnum(op, "alpha", 1.0)) + " * (exp" + f + "(" +
           v + ") - 1.0f))";
  if (t == "hardtanh")
    return clamped(v, flt(kwnum(op, "min_val", -1.0)), flt(kwnum(op, "max_val", 1.0)));
  if (t == "gelu") {
    const Py* a =
        op.kind == "call_module" ? op.module.get("approximate") : op.kwargs.get("approximate");
    if (a && a->kind == Py::kStr && a->s == "tanh")
      return "0.5f * " + v + " * (1.0f + tanh" + f + "(0.7978845608f * (" + v + " + 0.044715f * " +
             v + " * " + v + " * " + v + ")))";
    return "0.5f * " + v + " * (1.0f + erf" + f + "(" + v + " * 0.70710678f))";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> unary(const std::string& t, const FxOp& op, const std::string& v,
                                 const std::string& f) {
  auto fn = [&](const char* name) { return std::string(name) + f + "("; };
  std::string softplus = "(" + v + " > 20.0f ? " + v + " : " + fn("log1p") + fn("exp") + v + ")))";
  if (t == "relu") return "(" + v + " < 0.0f ? 0.0f : " + v + ")";
  if (t == "relu6") return clamped(v, "0.0f", "6.0f");
  if (t == "sigmoid") return "1.0f / (1.0f + " + fn("exp") + "-" + v + "))";
  if (t == "tanh") return fn("tanh") + v + ")";
  if (t == "silu") return v + " / (1.0f + " + fn("exp") + "-" + v + "))";
  if (t == "exp") return fn("exp") + v + ")";
  if (t == "abs") return fn("fabs") + v + ")";
  if (t == "neg") return "(-" + v + ")";
  if (t == "sqrt") return fn("sqrt") + v + ")";
  if (t == "softsign") return v + " / (1.0f + " + fn("fabs") + v + "))";
  if (t == "softplus") return softplus;
  if (t == "mish") return v + " * " + fn("tanh") + softplus.substr(1);
  if (t == "hardsigmoid") return clamped("(" + v + " / 6.0f + 0.5f)", "0.0f", "1.0f");
  if (t == "hardswish") return v + " * " + clamped("(" + v + " + 3.0f)", "0.0f", "6.0f") + " / 6.0f";
  return unary_with_args(t, op, v, f);
}

GenResult DeviceGen::run() {
  GenResult r;
  try {
    walk();
  } catch (const std::string& why) {
    r.ok = false;
    r.unknown_ops.push_back(why);
    r.code =
        std::string("// The offline coder has no ") + language() + " template for: " + why + "\n";
    r.features = feat_;
    return r;
  }
  set_features();
  r.code = assemble();
  r.features = feat_;
  return r;
}

int64_t DeviceGen::numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

const TensorLine* DeviceGen::tensor(const std::string& name) const {
  for (const auto& t : p_.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const TensorLine* DeviceGen::input(int k) const {
  for (const auto& t : p_.tensors)
    if (!t.output && t.index == k) return &t;
  return nullptr;
}

int DeviceGen::input_of(const Py& a) const {
  if (a.kind != Py::kName) return -2;
  auto it = placeholders_.find(a.s);
  return it == placeholders_.end() ? -2 : it->second;
}

const TensorLine* DeviceGen::input_tensor(const Py& a, const std::string& node) const {
  const TensorLine* t = input(input_of(a));
  if (!t) throw std::string(node + " (its operand is not a forward input)");
  return t;
}

void DeviceGen::start_main_from(const Py& a, const std::string& node) {
  if (main_node_.empty()) {
    src_ = input_of(a);
    if (src_ < 0) throw std::string(node + " (its operand is not a forward input)");
  } else if (!is_main(a)) {
    throw std::string(node + " (the graph branches)");
  }
  main_node_ = node;
}

namespace {

// The op an fx node runs: its target, or for call_module the functional name of the module.
std::string op_name(const FxOp& op) {
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
  if (op.kind != "call_module") return op.target;
  auto it = kMod.find(op.module.s);
  return it == kMod.end() ? "module:" + op.module.s : it->second;
}

bool is_binary(const std::string& t) {
  return t == "add" || t == "sub" || t == "mul" || t == "truediv" || t == "div";
}

}  // namespace

void DeviceGen::walk() {
  int next = 0;
  for (const auto& t : p_.tensors)
    if (t.output && t.index == 0) out_shape_ = t.shape;
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
    std::string t = op_name(op);
    const Py a0 = op.args.items.empty() ? Py{} : op.args.items[0];
    if (unary(t, op, "v", math_suffix())) {
      start_main_from(a0, op.name);
      std::string f = math_suffix();
      chain_.push_back([t, op, f](const std::string& v, const std::string&) {
        return "(" + *unary(t, op, v, f) + ")";
      });
      chain_ops_.push_back({t, &op});
      on_elementwise(true);
      continue;
    }
    if (is_binary(t)) {
      binary(op, t);
      on_elementwise(false);
      continue;
    }
    // The templates put one row/reduction/product first, then an elementwise epilogue.
    if (!main_node_.empty()) throw std::string(op.name + " (" + t + " after other operators)");
    layer(op, t, a0);
    src_ = input_of(a0);
    main_node_ = op.name;
  }
  if (main_node_.empty()) throw std::string("a graph with no operator");
}

void DeviceGen::binary(const FxOp& op, const std::string& t) {
  if (op.args.items.size() < 2) throw std::string(op.name + " (" + t + " arguments)");
  const Py &a = op.args.items[0], &b = op.args.items[1];
  std::string sym = t == "add" ? "+" : t == "sub" ? "-" : t == "mul" ? "*" : "/";
  // The running value is the left operand unless the right one is it (or, first in the
  // graph, unless the left one is a constant).
  bool left = is_main(a) || (main_node_.empty() && input_of(a) >= 0);
  const Py& mine = left ? a : b;
  const Py& other = left ? b : a;
  if (other.is_num()) {
    start_main_from(mine, op.name);
    std::string c = flt(other.num());
    chain_ops_.push_back({t, &op, true, left, other.num()});
    chain_.push_back([=](const std::string& v, const std::string&) {
      return left ? "(" + v + " " + sym + " " + c + ")" : "(" + c + " " + sym + " " + v + ")";
    });
    return;
  }
  int k = input_of(other);
  const TensorLine* ot = binary_operand(op, t, k, mine);
  Operand o{k, numel(ot->shape), numel(ot->shape) != numel(out_shape_)};
  if (o.broadcast) {
    if (ot->shape.size() > out_shape_.size()) throw std::string(op.name + " (broadcast)");
    check_broadcast(op, *ot, o);
    feat_.has_broadcast = true;
  }
  operands_.push_back(o);
  chain_ops_.push_back({t, &op, false, left});
  std::string ptr = "t" + std::to_string(k);
  bool ignore = pit("broadcast_ignored");
  chain_.push_back([=](const std::string& v, const std::string& idx) {
    std::string e = o.broadcast && !ignore
                        ? ptr + "[(" + idx + ") % " + std::to_string(o.numel) + "]"
                        : ptr + "[" + idx + "]";
    return left ? "(" + v + " " + sym + " " + e + ")" : "(" + e + " " + sym + " " + v + ")";
  });
}

void DeviceGen::reduction(const FxOp& op, const std::string& t, int rank) {
  const Py* d = op.kwargs.get("dim");
  if (!d && op.args.items.size() > 1) d = &op.args.items[1];
  if (!d) throw std::string(op.name + " (a reduction over every dimension)");
  int64_t dim = d->is_seq() ? (d->items.size() == 1 ? d->items[0].i : 1000) : d->i;
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) throw std::string(op.name + " (a reduction over several dimensions)");
  red_dim_ = static_cast<int>(dim);
  red_op_ = t;
  main_ = Main::kReduce;
}

int DeviceGen::softmax_dim(const FxOp& op) {
  return static_cast<int>(op.kind == "call_module"
                              ? (op.module.get("dim") ? op.module.get("dim")->num() : -1)
                              : (op.kwargs.get("dim")       ? op.kwargs.get("dim")->num()
                                 : op.args.items.size() > 1 ? op.args.items[1].num()
                                                            : -1));
}

void DeviceGen::row_softmax(const FxOp& op, const std::string& t, int rank, int dim) {
  if (dim != -1 && dim != rank - 1)
    throw std::string(op.name + " (softmax over a dimension other than the last)");
  main_ = Main::kRow;
  row_op_ = t;
}

void DeviceGen::row_layer_norm(const FxOp& op, const TensorLine& w, const TensorLine& b) {
  ln_w_ = w.index;
  ln_b_ = b.index;
  const Py* eps = op.module.get("eps");
  ln_eps_ = eps && eps->is_num() ? eps->num() : 1e-5;
  main_ = Main::kRow;
  row_op_ = "layer_norm";
}

void DeviceGen::linear_product(const TensorLine& w, const TensorLine* b) {
  mm_b_ = w.index;
  lin_bias_ = b ? b->index : -1;
  linear_ = true;
  main_ = Main::kProduct;
}

void DeviceGen::draft_features() {
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

std::string DeviceGen::epilogue(const std::string& v, const std::string& idx) const {
  std::string e = v;
  for (const auto& f : chain_) e = f(e, idx);
  return e;
}

std::string DeviceGen::operand_list(const std::string& before, const std::string& after) const {
  std::string s;
  for (const auto& o : operands_) s += before + std::to_string(o.input) + after;
  return s;
}

std::string DeviceGen::epilogue4(const std::string& indent) const {
  return indent + "v.x = " + epilogue("v.x", "4 * i") + ";\n" + indent +
         "v.y = " + epilogue("v.y", "4 * i + 1") + ";\n" + indent +
         "v.z = " + epilogue("v.z", "4 * i + 2") + ";\n" + indent +
         "v.w = " + epilogue("v.w", "4 * i + 3") + ";\n";
}

std::string DeviceGen::moves_line() const {
  std::string s = "// evk-sim-moves:";
  for (size_t k = 0; k < plan_.moves.size(); ++k) {
    s += (k ? "," : " ") + std::string(plan_.moves[k].first);
    if (plan_.moves[k].second) s += ":" + std::to_string(plan_.moves[k].second);
  }
  if (plan_.moves.empty()) s += " none";
  return s;
}

}  // namespace evk::sim
