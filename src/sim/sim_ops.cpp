// The sim's op dispatch: one fx node (call_function, call_method or call_module) -> a value,
// through the elementwise, view and loop-nest templates.
//
// call_op (at the end of this file) is the whole dispatch: it names the op (a module form that
// is a function in disguise, nn.ReLU, becomes that function) and asks each op family of
// sim_ops.h in a fixed order until one answers. Families that are data are tables (module
// aliases, passthroughs, unary and math functions, parametric activations). This file holds
// the argument helpers and the elementwise and loss families; sim_ops_views.cpp the shape
// queries and views; sim_ops_linalg.cpp reductions, norms, products, convolutions, pooling.
// Anything no family answers has no template: Gen::unknown turns it into a call to a helper
// that was never written.
#include "sim/sim_ops.h"

#include <cmath>
#include <functional>

namespace evk::sim {

// ---------------------------------------------------------------- argument helpers

int norm_dim(int64_t d, int rank) {
  int r = rank == 0 ? 1 : rank;
  if (d < -r || d >= r) throw Unsupported("dim out of range");
  return static_cast<int>(d < 0 ? d + r : d);
}

// Module constructor arguments: positional i or keyword name.
const Py* mod_arg(const FxOp& op, size_t i, const std::string& name) {
  if (op.module.kind != Py::kCall) return nullptr;
  if (i < op.module.items.size()) return &op.module.items[i];
  return op.module.get(name);
}

double mod_real(const FxOp& op, size_t i, const std::string& name, double def) {
  const Py* p = mod_arg(op, i, name);
  return p && p->is_num() ? p->num() : def;
}

std::vector<int64_t> mod_ints(const FxOp& op, size_t i, const std::string& name, int nd,
                              std::vector<int64_t> def) {
  const Py* p = mod_arg(op, i, name);
  std::vector<int64_t> out;
  if (!p || p->kind == Py::kNone) {
    out = def;
  } else if (p->is_seq()) {
    for (const Py& x : p->items) out.push_back(x.i);
  } else if (p->kind == Py::kInt) {
    out.push_back(p->i);
  } else {
    throw Unsupported("module argument " + name);
  }
  if (out.size() == 1 && nd > 1) out.assign(nd, out[0]);
  if (static_cast<int>(out.size()) != nd) throw Unsupported("module argument " + name + " rank");
  return out;
}

std::vector<int64_t> spread(std::vector<int64_t> v, int nd) {
  if (v.size() == 1 && nd > 1) v.assign(nd, v[0]);
  if (static_cast<int>(v.size()) != nd) throw Unsupported("per-dimension argument rank");
  return v;
}

const Val* param(Gen& g, const FxOp& op, const std::string& name, Val& store) {
  const TensorLine* t = g.tensor_named("param." + op.target + "." + name);
  if (!t) return nullptr;
  store = make_buf(g.tensor_ptr(*t), t->shape, t->dtype);
  return &store;
}

Val binary(Gen& g, const std::string& node, const Val& x, const Val& y,
           std::function<std::string(const std::string&, const std::string&)> f) {
  return g.ew(node, {x, y}, [f](const std::vector<std::string>& e) { return f(e[0], e[1]); });
}

namespace {

using Unary = std::function<std::string(Gen&, const std::string&, const FxOp&)>;

// ---------------------------------------------------------------- elementwise tables

std::string h1(Gen& g, const std::string& name, const std::string& v) {
  return g.helper(name) + "(" + v + ")";
}

const std::map<std::string, Unary>& unary_table() {
  static const std::map<std::string, Unary> t = {
      {"relu", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_relu", v); }},
      {"relu6", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_relu6", v); }},
      {"sigmoid", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_sigmoid", v); }},
      {"silu", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_silu", v); }},
      {"mish", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_mish", v); }},
      {"selu", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_selu", v); }},
      {"softsign",
       [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_softsign", v); }},
      {"hardsigmoid",
       [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_hardsigmoid", v); }},
      {"hardswish",
       [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_hardswish", v); }},
      {"log_sigmoid",
       [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_logsigmoid", v); }},
      {"logsigmoid",
       [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_logsigmoid", v); }},
      {"tanhshrink",
       [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_tanhshrink", v); }},
      {"square", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_sq", v); }},
      {"sign", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_sign", v); }},
      {"neg", [](Gen&, const std::string& v, const FxOp&) { return "-" + v; }},
      {"negative", [](Gen&, const std::string& v, const FxOp&) { return "-" + v; }},
      {"reciprocal", [](Gen&, const std::string& v, const FxOp&) { return "1.f / " + v; }},
  };
  return t;
}

// std:: math functions applied as is.
const std::map<std::string, std::string>& math_table() {
  static const std::map<std::string, std::string> t = {
      {"exp", "std::exp"},     {"log", "std::log"},         {"sqrt", "std::sqrt"},
      {"abs", "std::fabs"},    {"tanh", "std::tanh"},       {"sin", "std::sin"},
      {"cos", "std::cos"},     {"erf", "std::erf"},         {"floor", "std::floor"},
      {"ceil", "std::ceil"},   {"round", "std::nearbyint"}, {"log1p", "std::log1p"},
      {"expm1", "std::expm1"}, {"log2", "std::log2"},       {"exp2", "std::exp2"},
      {"log10", "std::log10"}, {"trunc", "std::trunc"},     {"tan", "std::tan"},
      {"atan", "std::atan"},   {"asin", "std::asin"},       {"acos", "std::acos"},
      {"sinh", "std::sinh"},   {"cosh", "std::cosh"},       {"erfc", "std::erfc"},
  };
  return t;
}

// Views and passthroughs that cost nothing.

// Activations with scalar parameters: helper(x, p0, p1, ...). Function forms read each
// parameter from the call (position, keyword, default), module forms from the constructor.
struct ScalarParam {
  size_t pos;
  const char* name;
  double def;
};
struct ParamUnary {
  const char* helper;
  std::vector<ScalarParam> params;
};

const std::map<std::string, ParamUnary>& param_unary_table() {
  static const std::map<std::string, ParamUnary> t = {
      {"elu", {"op_elu", {{1, "alpha", 1.0}}}},
      {"module:ELU", {"op_elu", {{0, "alpha", 1.0}}}},
      {"celu", {"op_celu", {{1, "alpha", 1.0}}}},
      {"module:CELU", {"op_celu", {{0, "alpha", 1.0}}}},
      {"leaky_relu", {"op_leaky_relu", {{1, "negative_slope", 0.01}}}},
      {"module:LeakyReLU", {"op_leaky_relu", {{0, "negative_slope", 0.01}}}},
      {"hardtanh", {"op_clamp", {{1, "min_val", -1.0}, {2, "max_val", 1.0}}}},
      {"module:Hardtanh", {"op_clamp", {{0, "min_val", -1.0}, {1, "max_val", 1.0}}}},
      {"softplus", {"op_softplus", {{1, "beta", 1.0}, {2, "threshold", 20.0}}}},
      {"module:Softplus", {"op_softplus", {{0, "beta", 1.0}, {1, "threshold", 20.0}}}},
      {"hardshrink", {"op_hardshrink", {{1, "lambd", 0.5}}}},
      {"module:Hardshrink", {"op_hardshrink", {{0, "lambd", 0.5}}}},
      {"softshrink", {"op_softshrink", {{1, "lambd", 0.5}}}},
      {"module:Softshrink", {"op_softshrink", {{0, "lambd", 0.5}}}},
      {"threshold", {"op_threshold", {{1, "threshold", 0}, {2, "value", 0}}}},
      {"module:Threshold", {"op_threshold", {{0, "threshold", 0}, {1, "value", 0}}}},
  };
  return t;
}

// Module forms that are the function of the same name.
const std::map<std::string, std::string>& module_alias_table() {
  // clang-format off
  static const std::map<std::string, std::string> t = {
      {"module:ReLU", "relu"},           {"module:ReLU6", "relu6"},
      {"module:Sigmoid", "sigmoid"},     {"module:Tanh", "tanh"},
      {"module:SiLU", "silu"},           {"module:Mish", "mish"},
      {"module:SELU", "selu"},           {"module:Softsign", "softsign"},
      {"module:Hardsigmoid", "hardsigmoid"}, {"module:Hardswish", "hardswish"},
      {"module:LogSigmoid", "log_sigmoid"},  {"module:Tanhshrink", "tanhshrink"}};
  // clang-format on
  return t;
}

double fold(const std::string& t, double a, double b) {
  if (t == "add") return a + b;
  if (t == "sub") return a - b;
  if (t == "mul") return a * b;
  if (t == "truediv" || t == "div") return a / b;
  if (t == "floordiv") return std::floor(a / b);
  if (t == "pow") return std::pow(a, b);
  if (t == "mod") return std::fmod(a, b);
  throw Unsupported("constant " + t);
}

std::string loss_reduction(const FxOp& op) {
  const Py* r = op.kwargs.get("reduction");
  return r && r->kind == Py::kStr ? r->s : "mean";
}

Val reduce_loss(Gen& g, const std::string& node, const Val& elems, const std::string& reduction,
                double scale_div = 0) {
  if (reduction == "none") return elems;
  std::vector<int> all;
  for (int d = 0; d < elems.rank(); ++d) all.push_back(d);
  if (reduction == "sum") return g.reduce(node, elems, all, false, "sum");
  if (reduction == "mean") return g.reduce(node, elems, all, false, "mean");
  if (reduction == "batchmean") {
    Val s = g.reduce(node + "_sum", elems, all, false, "sum");
    double n = scale_div;
    return g.ew(node, {s},
                [n](const std::vector<std::string>& e) { return e[0] + " / " + flit(n); });
  }
  throw Unsupported("reduction " + reduction);
}

}  // namespace

// ---------------------------------------------------------------- passthroughs

std::optional<Val> OpCall::passthrough() const {
  // clang-format off
  static const std::set<std::string> kPass = {
      "contiguous", "clone", "detach", "float", "to", "type_as", "dropout", "alpha_dropout",
      "feature_alpha_dropout", "dropout2d", "dropout3d", "module:Dropout", "module:Dropout1d",
      "module:Dropout2d", "module:Dropout3d", "module:AlphaDropout", "module:Identity",
      "positive", "cpu", "requires_grad_"};
  // clang-format on
  if (!kPass.count(t)) return std::nullopt;
  if (t == "to" || t == "float") {
    for (const Py& x : op.args.items)
      if (x.kind == Py::kName && x.s.find("float64") != std::string::npos)
        throw Unsupported("float64 compute");
  }
  return a.tensor(0);
}

// ---------------------------------------------------------------- unary elementwise

std::optional<Val> OpCall::unary_elementwise() const {
  if (auto it = unary_table().find(t); it != unary_table().end()) {
    Val x = a.tensor(0);
    auto fn = it->second;
    return g.ew(node, {x}, [&g = g, fn, &op = op](const std::vector<std::string>& e) {
      return fn(g, e[0], op);
    });
  }
  if (auto it = math_table().find(t); it != math_table().end()) {
    Val x = a.tensor(0);
    std::string f = it->second;
    g.use_math();
    return g.ew(node, {x}, [f](const std::vector<std::string>& e) { return f + "(" + e[0] + ")"; });
  }
  if (t == "rsqrt") {
    g.use_math();
    return g.ew(node, {a.tensor(0)},
                [](const std::vector<std::string>& e) { return "1.f / std::sqrt(" + e[0] + ")"; });
  }
  if (t == "gelu" || t == "module:GELU") {
    std::string approx = t == "gelu" ? a.str(1, "approximate", "none") : [&] {
      const Py* p = mod_arg(op, 0, "approximate");
      return p && p->kind == Py::kStr ? p->s : std::string("none");
    }();
    std::string h = g.helper(approx == "tanh" ? "op_gelu_tanh" : "op_gelu");
    return g.ew(node, {a.tensor(0)},
                [h](const std::vector<std::string>& e) { return h + "(" + e[0] + ")"; });
  }
  return std::nullopt;
}

Val OpCall::param_unary(const std::string& helper, std::vector<double> ps) const {
  std::string h = g.helper(helper);
  std::string extra;
  for (double p : ps) extra += ", " + flit(p);
  return g.ew(node, {a.tensor(0)}, [h, extra](const std::vector<std::string>& e) {
    return h + "(" + e[0] + extra + ")";
  });
}

std::optional<Val> OpCall::parametric_unary() const {
  auto it = param_unary_table().find(t);
  if (it == param_unary_table().end()) return std::nullopt;
  bool module = t.rfind("module:", 0) == 0;
  std::vector<double> ps;
  for (const ScalarParam& p : it->second.params)
    ps.push_back(module ? mod_real(op, p.pos, p.name, p.def) : a.real(p.pos, p.name, p.def));
  return param_unary(it->second.helper, ps);
}

std::optional<Val> OpCall::clamp() const {
  if (t != "clamp" && t != "clip" && t != "clamp_min" && t != "clamp_max") return std::nullopt;
  Val x = a.tensor(0);  // not a tensor: that error comes before any about the bounds
  double lo = -HUGE_VAL, hi = HUGE_VAL;
  if (t == "clamp_min")
    lo = a.real(1, "min", -HUGE_VAL);
  else if (t == "clamp_max")
    hi = a.real(1, "max", HUGE_VAL);
  else {
    if (a.py(1, "min") && a.val(1, "min").is_tensor()) throw Unsupported("tensor clamp bounds");
    lo = a.real(1, "min", -HUGE_VAL);
    hi = a.real(2, "max", HUGE_VAL);
  }
  g.use_math();
  return param_unary("op_clamp", {lo, hi});
}

// ---------------------------------------------------------------- binary / ternary elementwise

// Operator and torch forms.
std::optional<Val> OpCall::binary_elementwise() const {
  static const std::set<std::string> kBin = {
      "add",       "sub",      "mul",     "truediv", "div",          "rsub",
      "floordiv",  "pow",      "maximum", "minimum", "fmax",         "fmin",
      "remainder", "fmod",     "mod",     "eq",      "ne",           "gt",
      "ge",        "lt",       "le",      "atan2",   "floor_divide", "true_divide",
      "multiply",  "subtract", "iadd",    "imul",    "isub",         "itruediv"};
  bool minmax2 = (t == "max" || t == "min") && op.args.items.size() >= 2 && a.val(1).is_tensor();
  if (!kBin.count(t) && !minmax2) return std::nullopt;
  Val x = a.val(0, "input"), y = a.val(1, "other");
  if (y.kind == Val::kNone && t == "pow") y = a.val(1, "exponent");
  std::string k = binary_kind(minmax2);
  if (k == "rsub") std::swap(x, y), k = "sub";
  double alpha = (k == "add" || k == "sub") ? a.real(2, "alpha", 1.0) : 1.0;
  if (x.kind == Val::kConst && y.kind == Val::kConst)
    return make_const(fold(k, x.c, y.c), x.c_int && y.c_int && k != "truediv");
  if (alpha != 1.0) {
    double al = alpha;
    y = g.ew(node + "_alpha", {y},
             [al](const std::vector<std::string>& e) { return flit(al) + " * " + e[0]; });
  }
  if (k == "pow" && y.kind == Val::kConst) {  // x**2, x**1 and x**0.5 without std::pow
    if (y.c == 2.0) {
      std::string h = g.helper("op_sq");
      return g.ew(node, {x},
                  [h](const std::vector<std::string>& e) { return h + "(" + e[0] + ")"; });
    }
    if (y.c == 1.0) return x;
    if (y.c == 0.5) {
      g.use_math();
      return g.ew(node, {x},
                  [](const std::vector<std::string>& e) { return "std::sqrt(" + e[0] + ")"; });
    }
  }
  return binary(g, node, x, y, binary_operator(k));
}

std::string OpCall::binary_kind(bool minmax2) const {
  std::string k = t;
  if (k == "multiply" || k == "imul") k = "mul";
  if (k == "subtract" || k == "isub") k = "sub";
  if (k == "iadd") k = "add";
  if (k == "true_divide" || k == "itruediv") k = "div";
  if (k == "floor_divide") k = "floordiv";
  if (k == "div" && a.str(2, "rounding_mode", "") == "floor") k = "floordiv";
  if (k == "div" && a.str(2, "rounding_mode", "") == "trunc") throw Unsupported("trunc division");
  if (minmax2) k = t == "max" ? "maximum" : "minimum";
  return k;
}

std::function<std::string(const std::string&, const std::string&)> OpCall::binary_operator(
    const std::string& k) const {
  using S = const std::string&;
  auto call2 = [](const std::string& h) {
    return [h](S p, S q) { return h + "(" + p + ", " + q + ")"; };
  };
  if (k == "add") return [](S p, S q) { return p + " + " + q; };
  if (k == "sub") return [](S p, S q) { return p + " - " + q; };
  if (k == "mul") return [](S p, S q) { return p + " * " + q; };
  if (k == "truediv" || k == "div") return [](S p, S q) { return p + " / " + q; };
  if (k == "floordiv") return call2(g.helper("op_floordiv"));
  if (k == "maximum" || k == "fmax") return call2(g.helper("op_max2"));
  if (k == "minimum" || k == "fmin") return call2(g.helper("op_min2"));
  if (k == "remainder" || k == "mod") return call2(g.helper("op_remainder"));
  if (k == "fmod" || k == "atan2" || k == "pow") {
    g.use_math();
    return call2("std::" + k);
  }
  static const std::map<std::string, std::string> cmp = {{"eq", "=="}, {"ne", "!="}, {"gt", ">"},
                                                         {"ge", ">="}, {"lt", "<"},  {"le", "<="}};
  std::string c = cmp.at(k);
  return [c](S p, S q) { return "(" + p + " " + c + " " + q + " ? 1.f : 0.f)"; };
}

std::optional<Val> OpCall::ternary_elementwise() const {
  if (t == "where") {
    Val c = a.val(0, "condition"), x = a.val(1, "input"), y = a.val(2, "other");
    return g.ew(node, {c, x, y}, [](const std::vector<std::string>& e) {
      return e[0] + " != 0.f ? " + e[1] + " : " + e[2];
    });
  }
  if (t == "masked_fill") {
    Val x = a.tensor(0), m = a.tensor(1, "mask");
    double v = a.real(2, "value", 0);
    return g.ew(node, {x, m}, [v](const std::vector<std::string>& e) {
      return e[1] + " != 0.f ? " + flit(v) + " : " + e[0];
    });
  }
  if (t == "lerp") {
    return g.ew(node, {a.tensor(0), a.val(1, "end"), a.val(2, "weight")},
                [](const std::vector<std::string>& e) {
                  return e[0] + " + " + e[2] + " * (" + e[1] + " - " + e[0] + ")";
                });
  }
  if (t == "addcmul" || t == "addcdiv") {
    double v = a.real(3, "value", 1.0);
    std::string o = t == "addcmul" ? " * " : " / ";
    return g.ew(node, {a.tensor(0), a.tensor(1), a.tensor(2)},
                [v, o](const std::vector<std::string>& e) {
                  return e[0] + " + " + flit(v) + " * " + e[1] + o + e[2];
                });
  }
  return std::nullopt;
}

// tril / triu: a lazy mask on the last two dims.
std::optional<Val> OpCall::triangle() const {
  if (t != "tril" && t != "triu") return std::nullopt;
  Val x = a.tensor(0);
  int64_t dg = a.integer(1, "diagonal", 0);
  bool low = t == "tril";
  Shape s = x.shape;
  Val src = x;
  return g.lazy(s, [&g = g, src, dg, low](const Idx& ix) {
    std::string i = ix[ix.size() - 2], j = ix.back();
    std::string cond = low ? j + " <= " + i + " + " + ilit(dg) : j + " >= " + i + " + " + ilit(dg);
    return "(" + cond + " ? " + g.elem(src, ix) + " : 0.f)";
  });
}

// ---------------------------------------------------------------- losses

// Losses that are elementwise with a reduction.
std::optional<Val> OpCall::elementwise_loss() const {
  if (t != "mse_loss" && t != "l1_loss" && t != "huber_loss" && t != "smooth_l1_loss" &&
      t != "kl_div" && t != "binary_cross_entropy" && t != "binary_cross_entropy_with_logits" &&
      t != "soft_margin_loss")
    return std::nullopt;
  Val x = a.tensor(0), y = a.tensor(1, "target");
  if (a.has(2, "weight") && t.rfind("binary", 0) == 0) throw Unsupported("weighted bce");
  std::function<std::string(const std::vector<std::string>&)> f = loss_elem();
  Val el = g.ew(node + "_elem", {x, y}, f);
  std::string red = loss_reduction(op);
  if (red == "none") return el;
  if (!g.move("fuse")) el = g.materialize(el, node + "_elem");
  return reduce_loss(g, node, el, red, x.rank() ? static_cast<double>(x.shape[0]) : 1.0);
}

// The per-element loss of elementwise_loss over (input, target).
std::function<std::string(const std::vector<std::string>&)> OpCall::loss_elem() const {
  using E = const std::vector<std::string>&;
  if (t == "mse_loss") {
    std::string h = g.helper("op_sq");
    return [h](E e) { return h + "(" + e[0] + " - " + e[1] + ")"; };
  }
  if (t == "l1_loss") {
    g.use_math();
    return [](E e) { return "std::fabs(" + e[0] + " - " + e[1] + ")"; };
  }
  if (t == "huber_loss") {
    std::string h = g.helper("op_huber");
    double d = op.kwargs.get("delta") ? op.kwargs.get("delta")->num() : 1.0;
    return [h, d](E e) { return h + "(" + e[0] + " - " + e[1] + ", " + flit(d) + ")"; };
  }
  if (t == "smooth_l1_loss") {
    std::string h = g.helper("op_smooth_l1");
    double b = op.kwargs.get("beta") ? op.kwargs.get("beta")->num() : 1.0;
    return [h, b](E e) { return h + "(" + e[0] + " - " + e[1] + ", " + flit(b) + ")"; };
  }
  if (t == "kl_div") {
    const Py* lt = op.kwargs.get("log_target");
    if (lt && lt->kind == Py::kBool && lt->b) throw Unsupported("kl_div log_target");
    std::string h = g.helper("op_kl_div");
    return [h](E e) { return h + "(" + e[0] + ", " + e[1] + ")"; };
  }
  if (t == "binary_cross_entropy") {
    std::string h = g.helper("op_bce");
    return [h](E e) { return h + "(" + e[0] + ", " + e[1] + ")"; };
  }
  if (t == "binary_cross_entropy_with_logits") {
    std::string h = g.helper("op_bce_logits");
    return [h](E e) { return h + "(" + e[0] + ", " + e[1] + ")"; };
  }
  g.use_math();  // soft_margin_loss
  return [](E e) { return "std::log1p(std::exp(-" + e[1] + " * " + e[0] + "))"; };
}

std::optional<Val> OpCall::other_loss() const {
  if (t == "cross_entropy") {
    if (a.has(2, "weight") || a.real(99, "label_smoothing", 0.0) != 0.0 ||
        a.integer(99, "ignore_index", -100) != -100)
      throw Unsupported("cross_entropy options");
    return g.cross_entropy(node, a.tensor(0), a.tensor(1, "target"), loss_reduction(op));
  }
  if (t == "cosine_similarity") {
    return g.cosine_similarity(node, a.tensor(0), a.tensor(1),
                               norm_dim(a.integer(2, "dim", 1), a.tensor(0).rank()),
                               a.real(3, "eps", 1e-8));
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- dispatch

namespace {

// The op's name as the families know it: the target, or "module:Class" for a module call,
// where a module that is a function in disguise (nn.ReLU) becomes that function.
std::string fx_op_name(const FxOp& op) {
  std::string t = op.target;
  if (op.kind == "call_module") {
    if (op.module.kind != Py::kCall && op.module.kind != Py::kName)
      throw Unsupported("module repr not understood");
    t = "module:" + op.module.s;
  }
  if (auto it = module_alias_table().find(t); it != module_alias_table().end()) t = it->second;
  return t;
}

using Family = std::optional<Val> (OpCall::*)() const;

// Dispatch order (see sim_ops.h: earlier families shadow later ones).
constexpr Family kFamilies[] = {
    &OpCall::passthrough,   &OpCall::unary_elementwise,  &OpCall::parametric_unary,
    &OpCall::clamp,         &OpCall::binary_elementwise, &OpCall::ternary_elementwise,
    &OpCall::triangle,      &OpCall::elementwise_loss,   &OpCall::other_loss,
    &OpCall::shape_query,   &OpCall::attribute,          &OpCall::getitem,
    &OpCall::reshape,       &OpCall::dim_view,           &OpCall::narrow_or_diag,
    &OpCall::concatenate,   &OpCall::chunk_or_split,     &OpCall::reduction,
    &OpCall::along_dim,     &OpCall::layer_norm,         &OpCall::group_norm,
    &OpCall::instance_norm, &OpCall::batch_norm,         &OpCall::product,
    &OpCall::conv_function, &OpCall::conv_module,        &OpCall::pool_module,
    &OpCall::pool_function, &OpCall::adaptive_pool,
};

}  // namespace

Val call_op(Gen& g, const FxOp& op);

Val Gen::call(const FxOp& op) {
  return call_op(*this, op);
}

Val call_op(Gen& g, const FxOp& op) {
  const OpCall c{.g = g,
                 .op = op,
                 .a = Args{.g = g, .op = op, .env = g.env_},
                 .node = op.name,
                 .t = fx_op_name(op),
                 .fx = op.shape_known ? op.shape : Shape{}};
  for (Family family : kFamilies)
    if (std::optional<Val> v = (c.*family)()) return std::move(*v);
  throw Unsupported("no template");
}

}  // namespace evk::sim
