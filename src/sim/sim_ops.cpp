// The sim's op dispatch: one fx node (call_function, call_method or call_module) -> a value,
// through the elementwise, view and loop-nest templates. Anything not listed here has no
// template: Gen::unknown turns it into a call to a helper that was never written.
#include <cmath>
#include <functional>

#include "sim/sim_codegen.h"

namespace evk::sim {
namespace {

using Unary = std::function<std::string(Gen&, const std::string&, const FxOp&)>;

// ---------------------------------------------------------------- argument access

struct Args {
  Gen& g;
  const FxOp& op;
  const std::map<std::string, Val>& env;

  // Positional i, else keyword `name`; nullptr when absent.
  const Py* py(size_t i, const std::string& name) const {
    if (i < op.args.items.size()) return &op.args.items[i];
    if (!name.empty()) return op.kwargs.get(name);
    return nullptr;
  }
  Val val(const Py& p) const {
    switch (p.kind) {
      case Py::kName: {
        auto it = env.find(p.s);
        if (it == env.end()) throw Unsupported("unknown name " + p.s);
        return it->second;
      }
      case Py::kInt:
      case Py::kBool:
        return make_const(p.num(), true);
      case Py::kFloat:
        return make_const(p.f);
      case Py::kNone:
        return Val{};
      case Py::kTuple:
      case Py::kList: {
        Val t;
        t.kind = Val::kTuple;
        for (const Py& x : p.items) t.elems.push_back(val(x));
        return t;
      }
      default:
        throw Unsupported("argument form");
    }
  }
  Val val(size_t i, const std::string& name = "") const {
    const Py* p = py(i, name);
    if (!p) return Val{};
    return val(*p);
  }
  Val tensor(size_t i, const std::string& name = "") const {
    Val v = val(i, name);
    if (!v.is_tensor()) throw Unsupported("argument " + std::to_string(i) + " is not a tensor");
    return v;
  }
  bool has(size_t i, const std::string& name) const {
    const Py* p = py(i, name);
    return p && p->kind != Py::kNone;
  }
  int64_t integer(const Py& p) const {
    Val v = val(p);
    if (v.kind != Val::kConst) throw Unsupported("expected an integer");
    return static_cast<int64_t>(v.c);
  }
  int64_t integer(size_t i, const std::string& name, int64_t def) const {
    const Py* p = py(i, name);
    if (!p || p->kind == Py::kNone) return def;
    return integer(*p);
  }
  double real(size_t i, const std::string& name, double def) const {
    const Py* p = py(i, name);
    if (!p || p->kind == Py::kNone) return def;
    Val v = val(*p);
    if (v.kind != Val::kConst) throw Unsupported("expected a number");
    return v.c;
  }
  std::string str(size_t i, const std::string& name, const std::string& def) const {
    const Py* p = py(i, name);
    if (!p || p->kind != Py::kStr) return def;
    return p->s;
  }
  // An int or a sequence of ints (shape-like varargs when `rest` is set: view(a, b, c)).
  std::vector<int64_t> ints(const Py& p) const {
    std::vector<int64_t> out;
    if (p.is_seq()) {
      for (const Py& x : p.items) out.push_back(integer(x));
    } else {
      Val v = val(p);
      if (v.kind == Val::kTuple) {
        for (const Val& e : v.elems) {
          if (e.kind != Val::kConst) throw Unsupported("expected integers");
          out.push_back(static_cast<int64_t>(e.c));
        }
      } else {
        out.push_back(integer(p));
      }
    }
    return out;
  }
  std::vector<int64_t> varints(size_t from, const std::string& name) const {
    if (from < op.args.items.size()) {
      if (op.args.items.size() == from + 1) return ints(op.args.items[from]);
      std::vector<int64_t> out;
      for (size_t k = from; k < op.args.items.size(); ++k) out.push_back(integer(op.args.items[k]));
      return out;
    }
    const Py* p = op.kwargs.get(name);
    if (!p) return {};
    return ints(*p);
  }
};

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
      {"softsign", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_softsign", v); }},
      {"hardsigmoid", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_hardsigmoid", v); }},
      {"hardswish", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_hardswish", v); }},
      {"log_sigmoid", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_logsigmoid", v); }},
      {"logsigmoid", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_logsigmoid", v); }},
      {"tanhshrink", [](Gen& g, const std::string& v, const FxOp&) { return h1(g, "op_tanhshrink", v); }},
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
      {"exp", "std::exp"},     {"log", "std::log"},     {"sqrt", "std::sqrt"},
      {"abs", "std::fabs"},    {"tanh", "std::tanh"},   {"sin", "std::sin"},
      {"cos", "std::cos"},     {"erf", "std::erf"},     {"floor", "std::floor"},
      {"ceil", "std::ceil"},   {"round", "std::nearbyint"}, {"log1p", "std::log1p"},
      {"expm1", "std::expm1"}, {"log2", "std::log2"},   {"exp2", "std::exp2"},
      {"log10", "std::log10"}, {"trunc", "std::trunc"}, {"tan", "std::tan"},
      {"atan", "std::atan"},   {"asin", "std::asin"},   {"acos", "std::acos"},
      {"sinh", "std::sinh"},   {"cosh", "std::cosh"},   {"erfc", "std::erfc"},
  };
  return t;
}

// Views and passthroughs that cost nothing.
Val passthrough_like(const Args& a) { return a.tensor(0); }

Val permute(Gen& g, const Val& x, const std::vector<int64_t>& perm) {
  if (static_cast<int>(perm.size()) != x.rank()) throw Unsupported("permute rank");
  Shape ns(perm.size());
  std::vector<DimMap> maps(x.rank());
  for (size_t d = 0; d < perm.size(); ++d) {
    int s = norm_dim(perm[d], x.rank());
    ns[d] = x.shape[s];
    maps[s].new_dim = static_cast<int>(d);
  }
  return g.view(x, ns, maps);
}

Val transpose(Gen& g, const Val& x, int64_t a, int64_t b) {
  std::vector<int64_t> perm(x.rank());
  for (int d = 0; d < x.rank(); ++d) perm[d] = d;
  std::swap(perm[norm_dim(a, x.rank())], perm[norm_dim(b, x.rank())]);
  return permute(g, x, perm);
}

Val unsqueeze(Gen& g, const Val& x, int64_t dim) {
  int d = norm_dim(dim, x.rank() + 1);
  Shape ns = x.shape;
  ns.insert(ns.begin() + d, 1);
  std::vector<DimMap> maps(x.rank());
  for (int s = 0; s < x.rank(); ++s) maps[s].new_dim = s < d ? s : s + 1;
  return g.view(x, ns, maps);
}

Val squeeze(Gen& g, const Val& x, std::vector<int64_t> dims) {
  std::set<int> drop;
  if (dims.empty()) {
    for (int d = 0; d < x.rank(); ++d)
      if (x.shape[d] == 1) drop.insert(d);
  } else {
    for (int64_t d : dims) {
      int n = norm_dim(d, x.rank());
      if (x.shape[n] == 1) drop.insert(n);
    }
  }
  Shape ns;
  std::vector<DimMap> maps(x.rank());
  for (int s = 0; s < x.rank(); ++s) {
    if (drop.count(s)) continue;
    maps[s].new_dim = static_cast<int>(ns.size());
    ns.push_back(x.shape[s]);
  }
  return g.view(x, ns, maps);
}

Val expand(Gen& g, const Val& x, std::vector<int64_t> sizes) {
  int R = static_cast<int>(sizes.size());
  if (R < x.rank()) throw Unsupported("expand to fewer dims");
  Shape ns(R);
  std::vector<DimMap> maps(x.rank());
  for (int d = 0; d < R; ++d) {
    int s = d - (R - x.rank());
    int64_t src = s >= 0 ? x.shape[s] : 1;
    ns[d] = sizes[d] == -1 ? src : sizes[d];
    if (s >= 0) {
      if (src == ns[d]) maps[s].new_dim = d;
      else if (src != 1) throw Unsupported("expand of a non-1 dim");
    }
  }
  return g.view(x, ns, maps);
}

Val flip(Gen& g, const Val& x, std::vector<int64_t> dims) {
  std::vector<DimMap> maps(x.rank());
  for (int s = 0; s < x.rank(); ++s) maps[s].new_dim = s;
  for (int64_t d : dims) {
    int s = norm_dim(d, x.rank());
    maps[s].scale = -1;
    maps[s].offset = x.shape[s] - 1;
  }
  return g.view(x, x.shape, maps);
}

// x[index] with ints, slices, None and Ellipsis.
Val subscript(Gen& g, const Args& a, const Val& x, const Py& index) {
  std::vector<Py> items = index.kind == Py::kTuple ? index.items : std::vector<Py>{index};
  int consumed = 0;
  for (const Py& it : items)
    if (!(it.kind == Py::kNone || (it.kind == Py::kName && it.s == "Ellipsis"))) ++consumed;
  Shape ns;
  std::vector<DimMap> maps(x.rank());
  int s = 0;
  for (const Py& it : items) {
    if (it.kind == Py::kNone) {
      ns.push_back(1);
    } else if (it.kind == Py::kName && it.s == "Ellipsis") {
      int skip = x.rank() - consumed;
      for (int k = 0; k < skip; ++k, ++s) {
        maps[s].new_dim = static_cast<int>(ns.size());
        ns.push_back(x.shape[s]);
      }
    } else if (it.kind == Py::kCall && it.s == "slice") {
      if (s >= x.rank()) throw Unsupported("too many indices");
      int64_t n = x.shape[s];
      auto part = [&](size_t k, int64_t def) {
        if (k >= it.items.size() || it.items[k].kind == Py::kNone) return def;
        return a.integer(it.items[k]);
      };
      int64_t step = part(2, 1);
      if (step <= 0) throw Unsupported("slice step");
      int64_t lo = part(0, 0), hi = part(1, n);
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      lo = std::max<int64_t>(0, std::min(lo, n));
      hi = std::max<int64_t>(lo, std::min(hi, n));
      maps[s] = {static_cast<int>(ns.size()), step, lo};
      ns.push_back((hi - lo + step - 1) / step);
      ++s;
    } else {
      Val iv = a.val(it);
      if (iv.kind != Val::kConst) throw Unsupported("tensor indexing");
      if (s >= x.rank()) throw Unsupported("too many indices");
      int64_t k = static_cast<int64_t>(iv.c);
      if (k < 0) k += x.shape[s];
      maps[s] = {-1, 1, k};
      ++s;
    }
  }
  for (; s < x.rank(); ++s) {
    maps[s].new_dim = static_cast<int>(ns.size());
    ns.push_back(x.shape[s]);
  }
  return g.view(x, ns, maps);
}

Shape infer_view_shape(std::vector<int64_t> dims, int64_t numel) {
  int64_t known = 1;
  int neg = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == -1) neg = static_cast<int>(d);
    else known *= dims[d];
  }
  if (neg >= 0) dims[neg] = known ? numel / known : 0;
  return dims;
}

Val binary(Gen& g, const std::string& node, const Val& x, const Val& y,
           std::function<std::string(const std::string&, const std::string&)> f) {
  return g.ew(node, {x, y}, [f](const std::vector<std::string>& e) { return f(e[0], e[1]); });
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
    return g.ew(node, {s}, [n](const std::vector<std::string>& e) { return e[0] + " / " + flit(n); });
  }
  throw Unsupported("reduction " + reduction);
}

std::vector<int> reduce_dims(const Args& a, const Val& x, size_t pos, const std::string& name) {
  std::vector<int> dims;
  const Py* p = a.py(pos, name);
  if (!p || p->kind == Py::kNone) {
    for (int d = 0; d < x.rank(); ++d) dims.push_back(d);
    return dims;
  }
  for (int64_t d : a.ints(*p)) dims.push_back(norm_dim(d, x.rank()));
  return dims;
}

const Val* param(Gen& g, const FxOp& op, const std::string& name, Val& store) {
  const TensorLine* t = g.tensor_named("param." + op.target + "." + name);
  if (!t) return nullptr;
  store = make_buf(g.tensor_ptr(*t), t->shape, t->dtype);
  return &store;
}

}  // namespace

Val call_op(Gen& g, const FxOp& op);

Val Gen::call(const FxOp& op) { return call_op(*this, op); }

Val call_op(Gen& g, const FxOp& op) {
  Args a{g, op, g.env_};
  const std::string& node = op.name;
  std::string t = op.target;
  if (op.kind == "call_module") {
    if (op.module.kind != Py::kCall && op.module.kind != Py::kName)
      throw Unsupported("module repr not understood");
    t = "module:" + op.module.s;
  }
  Shape fx = op.shape_known ? op.shape : Shape{};

  // ---- module forms that map onto functions
  static const std::map<std::string, std::string> kModUnary = {
      {"module:ReLU", "relu"}, {"module:ReLU6", "relu6"}, {"module:Sigmoid", "sigmoid"},
      {"module:Tanh", "tanh"}, {"module:SiLU", "silu"}, {"module:Mish", "mish"},
      {"module:SELU", "selu"}, {"module:Softsign", "softsign"}, {"module:Hardsigmoid", "hardsigmoid"},
      {"module:Hardswish", "hardswish"}, {"module:LogSigmoid", "log_sigmoid"},
      {"module:Tanhshrink", "tanhshrink"}};
  if (auto it = kModUnary.find(t); it != kModUnary.end()) t = it->second;

  // ---- passthroughs
  static const std::set<std::string> kPass = {
      "contiguous", "clone", "detach", "float", "to", "type_as", "dropout", "alpha_dropout",
      "feature_alpha_dropout", "dropout2d", "dropout3d", "module:Dropout", "module:Dropout1d",
      "module:Dropout2d", "module:Dropout3d", "module:AlphaDropout", "module:Identity",
      "positive", "cpu", "requires_grad_"};
  if (kPass.count(t)) {
    if (t == "to" || t == "float") {
      for (const Py& x : op.args.items)
        if (x.kind == Py::kName && x.s.find("float64") != std::string::npos)
          throw Unsupported("float64 compute");
    }
    return passthrough_like(a);
  }

  // ---- unary elementwise
  if (auto it = unary_table().find(t); it != unary_table().end()) {
    Val x = a.tensor(0);
    auto fn = it->second;
    return g.ew(node, {x}, [&g, fn, &op](const std::vector<std::string>& e) { return fn(g, e[0], op); });
  }
  if (auto it = math_table().find(t); it != math_table().end()) {
    Val x = a.tensor(0);
    std::string f = it->second;
    g.use_math();
    return g.ew(node, {x}, [f](const std::vector<std::string>& e) { return f + "(" + e[0] + ")"; });
  }
  if (t == "rsqrt") {
    g.use_math();
    return g.ew(node, {a.tensor(0)}, [](const std::vector<std::string>& e) {
      return "1.f / std::sqrt(" + e[0] + ")";
    });
  }
  if (t == "gelu" || t == "module:GELU") {
    std::string approx = t == "gelu" ? a.str(1, "approximate", "none") : [&] {
      const Py* p = mod_arg(op, 0, "approximate");
      return p && p->kind == Py::kStr ? p->s : std::string("none");
    }();
    std::string h = g.helper(approx == "tanh" ? "op_gelu_tanh" : "op_gelu");
    return g.ew(node, {a.tensor(0)}, [h](const std::vector<std::string>& e) { return h + "(" + e[0] + ")"; });
  }
  auto param_unary = [&](const std::string& helper, std::vector<double> ps) {
    std::string h = g.helper(helper);
    std::string extra;
    for (double p : ps) extra += ", " + flit(p);
    return g.ew(node, {a.tensor(0)}, [h, extra](const std::vector<std::string>& e) {
      return h + "(" + e[0] + extra + ")";
    });
  };
  if (t == "elu") return param_unary("op_elu", {a.real(1, "alpha", 1.0)});
  if (t == "module:ELU") return param_unary("op_elu", {mod_real(op, 0, "alpha", 1.0)});
  if (t == "celu") return param_unary("op_celu", {a.real(1, "alpha", 1.0)});
  if (t == "module:CELU") return param_unary("op_celu", {mod_real(op, 0, "alpha", 1.0)});
  if (t == "leaky_relu") return param_unary("op_leaky_relu", {a.real(1, "negative_slope", 0.01)});
  if (t == "module:LeakyReLU")
    return param_unary("op_leaky_relu", {mod_real(op, 0, "negative_slope", 0.01)});
  if (t == "hardtanh")
    return param_unary("op_clamp", {a.real(1, "min_val", -1.0), a.real(2, "max_val", 1.0)});
  if (t == "module:Hardtanh")
    return param_unary("op_clamp", {mod_real(op, 0, "min_val", -1.0), mod_real(op, 1, "max_val", 1.0)});
  if (t == "softplus") return param_unary("op_softplus", {a.real(1, "beta", 1.0), a.real(2, "threshold", 20.0)});
  if (t == "module:Softplus")
    return param_unary("op_softplus", {mod_real(op, 0, "beta", 1.0), mod_real(op, 1, "threshold", 20.0)});
  if (t == "hardshrink") return param_unary("op_hardshrink", {a.real(1, "lambd", 0.5)});
  if (t == "module:Hardshrink") return param_unary("op_hardshrink", {mod_real(op, 0, "lambd", 0.5)});
  if (t == "softshrink") return param_unary("op_softshrink", {a.real(1, "lambd", 0.5)});
  if (t == "module:Softshrink") return param_unary("op_softshrink", {mod_real(op, 0, "lambd", 0.5)});
  if (t == "threshold") return param_unary("op_threshold", {a.real(1, "threshold", 0), a.real(2, "value", 0)});
  if (t == "module:Threshold")
    return param_unary("op_threshold", {mod_real(op, 0, "threshold", 0), mod_real(op, 1, "value", 0)});
  if (t == "clamp" || t == "clip" || t == "clamp_min" || t == "clamp_max") {
    Val x = a.tensor(0);
    double lo = -HUGE_VAL, hi = HUGE_VAL;
    if (t == "clamp_min") lo = a.real(1, "min", -HUGE_VAL);
    else if (t == "clamp_max") hi = a.real(1, "max", HUGE_VAL);
    else {
      if (a.py(1, "min") && a.val(1, "min").is_tensor()) throw Unsupported("tensor clamp bounds");
      lo = a.real(1, "min", -HUGE_VAL);
      hi = a.real(2, "max", HUGE_VAL);
    }
    g.use_math();
    return param_unary("op_clamp", {lo, hi});
  }

  // ---- binary / ternary elementwise (operator and torch forms)
  static const std::set<std::string> kBin = {"add", "sub", "mul", "truediv", "div", "rsub",
                                             "floordiv", "pow", "maximum", "minimum", "fmax",
                                             "fmin", "remainder", "fmod", "mod", "eq", "ne", "gt",
                                             "ge", "lt", "le", "atan2", "floor_divide", "true_divide",
                                             "multiply", "subtract", "iadd", "imul", "isub", "itruediv"};
  bool minmax2 = (t == "max" || t == "min") && op.args.items.size() >= 2 &&
                 a.val(1).is_tensor();
  if (kBin.count(t) || minmax2) {
    Val x = a.val(0, "input"), y = a.val(1, "other");
    if (y.kind == Val::kNone && t == "pow") y = a.val(1, "exponent");
    std::string k = t;
    if (k == "multiply" || k == "imul") k = "mul";
    if (k == "subtract" || k == "isub") k = "sub";
    if (k == "iadd") k = "add";
    if (k == "true_divide" || k == "itruediv") k = "div";
    if (k == "floor_divide") k = "floordiv";
    if (k == "div" && a.str(2, "rounding_mode", "") == "floor") k = "floordiv";
    if (k == "div" && a.str(2, "rounding_mode", "") == "trunc") throw Unsupported("trunc division");
    if (minmax2) k = t == "max" ? "maximum" : "minimum";
    if (k == "rsub") std::swap(x, y), k = "sub";
    double alpha = (k == "add" || k == "sub") ? a.real(2, "alpha", 1.0) : 1.0;
    if (x.kind == Val::kConst && y.kind == Val::kConst) return make_const(fold(k, x.c, y.c), x.c_int && y.c_int && k != "truediv");
    if (alpha != 1.0) {
      double al = alpha;
      y = g.ew(node + "_alpha", {y}, [al](const std::vector<std::string>& e) { return flit(al) + " * " + e[0]; });
    }
    using S = const std::string&;
    std::function<std::string(S, S)> f;
    if (k == "add") f = [](S p, S q) { return p + " + " + q; };
    else if (k == "sub") f = [](S p, S q) { return p + " - " + q; };
    else if (k == "mul") f = [](S p, S q) { return p + " * " + q; };
    else if (k == "truediv" || k == "div") f = [](S p, S q) { return p + " / " + q; };
    else if (k == "floordiv") { std::string h = g.helper("op_floordiv"); f = [h](S p, S q) { return h + "(" + p + ", " + q + ")"; }; }
    else if (k == "maximum" || k == "fmax") { std::string h = g.helper("op_max2"); f = [h](S p, S q) { return h + "(" + p + ", " + q + ")"; }; }
    else if (k == "minimum" || k == "fmin") { std::string h = g.helper("op_min2"); f = [h](S p, S q) { return h + "(" + p + ", " + q + ")"; }; }
    else if (k == "remainder" || k == "mod") { std::string h = g.helper("op_remainder"); f = [h](S p, S q) { return h + "(" + p + ", " + q + ")"; }; }
    else if (k == "fmod") { g.use_math(); f = [](S p, S q) { return "std::fmod(" + p + ", " + q + ")"; }; }
    else if (k == "atan2") { g.use_math(); f = [](S p, S q) { return "std::atan2(" + p + ", " + q + ")"; }; }
    else if (k == "pow") {
      if (y.kind == Val::kConst && y.c == 2.0) {
        std::string h = g.helper("op_sq");
        return g.ew(node, {x}, [h](const std::vector<std::string>& e) { return h + "(" + e[0] + ")"; });
      }
      if (y.kind == Val::kConst && y.c == 1.0) return x;
      if (y.kind == Val::kConst && y.c == 0.5) {
        g.use_math();
        return g.ew(node, {x}, [](const std::vector<std::string>& e) { return "std::sqrt(" + e[0] + ")"; });
      }
      g.use_math();
      f = [](S p, S q) { return "std::pow(" + p + ", " + q + ")"; };
    } else {
      static const std::map<std::string, std::string> cmp = {
          {"eq", "=="}, {"ne", "!="}, {"gt", ">"}, {"ge", ">="}, {"lt", "<"}, {"le", "<="}};
      std::string c = cmp.at(k);
      f = [c](S p, S q) { return "(" + p + " " + c + " " + q + " ? 1.f : 0.f)"; };
    }
    return binary(g, node, x, y, f);
  }
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
                [](const std::vector<std::string>& e) { return e[0] + " + " + e[2] + " * (" + e[1] + " - " + e[0] + ")"; });
  }
  if (t == "addcmul" || t == "addcdiv") {
    double v = a.real(3, "value", 1.0);
    std::string o = t == "addcmul" ? " * " : " / ";
    return g.ew(node, {a.tensor(0), a.tensor(1), a.tensor(2)}, [v, o](const std::vector<std::string>& e) {
      return e[0] + " + " + flit(v) + " * " + e[1] + o + e[2];
    });
  }
  if (t == "tril" || t == "triu") {
    Val x = a.tensor(0);
    int64_t dg = a.integer(1, "diagonal", 0);
    bool low = t == "tril";
    Shape s = x.shape;
    Val src = x;
    return g.lazy(s, [&g, src, dg, low](const Idx& ix) {
      std::string i = ix[ix.size() - 2], j = ix.back();
      std::string cond = low ? j + " <= " + i + " + " + ilit(dg) : j + " >= " + i + " + " + ilit(dg);
      return "(" + cond + " ? " + g.elem(src, ix) + " : 0.f)";
    });
  }

  // ---- losses that are elementwise with a reduction
  if (t == "mse_loss" || t == "l1_loss" || t == "huber_loss" || t == "smooth_l1_loss" ||
      t == "kl_div" || t == "binary_cross_entropy" || t == "binary_cross_entropy_with_logits" ||
      t == "soft_margin_loss") {
    Val x = a.tensor(0), y = a.tensor(1, "target");
    if (a.has(2, "weight") && t.rfind("binary", 0) == 0) throw Unsupported("weighted bce");
    std::function<std::string(const std::vector<std::string>&)> f;
    if (t == "mse_loss") { std::string h = g.helper("op_sq"); f = [h](const std::vector<std::string>& e) { return h + "(" + e[0] + " - " + e[1] + ")"; }; }
    else if (t == "l1_loss") { g.use_math(); f = [](const std::vector<std::string>& e) { return "std::fabs(" + e[0] + " - " + e[1] + ")"; }; }
    else if (t == "huber_loss") { std::string h = g.helper("op_huber"); double d = op.kwargs.get("delta") ? op.kwargs.get("delta")->num() : 1.0; f = [h, d](const std::vector<std::string>& e) { return h + "(" + e[0] + " - " + e[1] + ", " + flit(d) + ")"; }; }
    else if (t == "smooth_l1_loss") { std::string h = g.helper("op_smooth_l1"); double b = op.kwargs.get("beta") ? op.kwargs.get("beta")->num() : 1.0; f = [h, b](const std::vector<std::string>& e) { return h + "(" + e[0] + " - " + e[1] + ", " + flit(b) + ")"; }; }
    else if (t == "kl_div") {
      const Py* lt = op.kwargs.get("log_target");
      if (lt && lt->kind == Py::kBool && lt->b) throw Unsupported("kl_div log_target");
      std::string h = g.helper("op_kl_div");
      f = [h](const std::vector<std::string>& e) { return h + "(" + e[0] + ", " + e[1] + ")"; };
    } else if (t == "binary_cross_entropy") { std::string h = g.helper("op_bce"); f = [h](const std::vector<std::string>& e) { return h + "(" + e[0] + ", " + e[1] + ")"; }; }
    else if (t == "binary_cross_entropy_with_logits") { std::string h = g.helper("op_bce_logits"); f = [h](const std::vector<std::string>& e) { return h + "(" + e[0] + ", " + e[1] + ")"; }; }
    else { g.use_math(); f = [](const std::vector<std::string>& e) { return "std::log1p(std::exp(-" + e[1] + " * " + e[0] + "))"; }; }
    Val el = g.ew(node + "_elem", {x, y}, f);
    std::string red = loss_reduction(op);
    if (red == "none") return el;
    if (!g.move("fuse")) el = g.materialize(el, node + "_elem");
    return reduce_loss(g, node, el, red, x.rank() ? static_cast<double>(x.shape[0]) : 1.0);
  }
  if (t == "cross_entropy") {
    if (a.has(2, "weight") || a.real(99, "label_smoothing", 0.0) != 0.0 ||
        a.integer(99, "ignore_index", -100) != -100)
      throw Unsupported("cross_entropy options");
    return g.cross_entropy(node, a.tensor(0), a.tensor(1, "target"), loss_reduction(op));
  }
  if (t == "cosine_similarity") {
    return g.cosine_similarity(node, a.tensor(0), a.tensor(1), norm_dim(a.integer(2, "dim", 1), a.tensor(0).rank()),
                               a.real(3, "eps", 1e-8));
  }

  // ---- shape queries
  if (t == "size") {
    Val x = a.tensor(0);
    if (a.has(1, "dim")) return make_const(static_cast<double>(x.shape[norm_dim(a.integer(1, "dim", 0), x.rank())]), true);
    Val tu;
    tu.kind = Val::kTuple;
    for (int64_t d : x.shape) tu.elems.push_back(make_const(static_cast<double>(d), true));
    return tu;
  }
  if (t == "dim") return make_const(a.tensor(0).rank(), true);
  if (t == "numel") return make_const(static_cast<double>(a.tensor(0).numel()), true);
  if (t == "getattr") {
    Val x = a.val(0);
    std::string attr = a.str(1, "", "");
    if (attr == "shape") {
      Val tu;
      tu.kind = Val::kTuple;
      for (int64_t d : x.shape) tu.elems.push_back(make_const(static_cast<double>(d), true));
      return tu;
    }
    if (attr == "T") {
      std::vector<int64_t> perm;
      for (int d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
      return permute(g, x, perm);
    }
    if (attr == "mT") return transpose(g, x, -2, -1);
    throw Unsupported("attribute " + attr);
  }
  if (t == "getitem") {
    Val x = a.val(0);
    if (x.kind == Val::kTuple) {
      int64_t k = a.integer(1, "", 0);
      if (k < 0) k += static_cast<int64_t>(x.elems.size());
      if (k < 0 || k >= static_cast<int64_t>(x.elems.size())) throw Unsupported("tuple index");
      return x.elems[k];
    }
    if (!x.is_tensor()) throw Unsupported("getitem on a non-tensor");
    return subscript(g, a, x, op.args.items.at(1));
  }

  // ---- views
  if (t == "view" || t == "reshape" || t == "view_as" || t == "reshape_as") {
    Val x = a.tensor(0);
    Shape ns = t.size() > 7 || t == "view_as" ? a.tensor(1).shape : infer_view_shape(a.varints(1, "shape"), x.numel());
    if (!fx.empty() || op.shape_known) ns = fx;
    return g.reshape(x, ns, node);
  }
  if (t == "flatten" || t == "module:Flatten") {
    Val x = a.tensor(0);
    int64_t s0 = t == "flatten" ? a.integer(1, "start_dim", 0) : static_cast<int64_t>(mod_real(op, 0, "start_dim", 1));
    int64_t s1 = t == "flatten" ? a.integer(2, "end_dim", -1) : static_cast<int64_t>(mod_real(op, 1, "end_dim", -1));
    if (x.rank() == 0) return g.reshape(x, {1}, node);
    int b = norm_dim(s0, x.rank()), e = norm_dim(s1, x.rank());
    Shape ns;
    for (int d = 0; d < b; ++d) ns.push_back(x.shape[d]);
    int64_t m = 1;
    for (int d = b; d <= e; ++d) m *= x.shape[d];
    ns.push_back(m);
    for (int d = e + 1; d < x.rank(); ++d) ns.push_back(x.shape[d]);
    return g.reshape(x, ns, node);
  }
  if (t == "unflatten") {
    Val x = a.tensor(0);
    int d = norm_dim(a.integer(1, "dim", 0), x.rank());
    std::vector<int64_t> sizes = a.ints(*a.py(2, "sizes"));
    Shape ns(x.shape.begin(), x.shape.begin() + d);
    Shape part = infer_view_shape(sizes, x.shape[d]);
    ns.insert(ns.end(), part.begin(), part.end());
    ns.insert(ns.end(), x.shape.begin() + d + 1, x.shape.end());
    return g.reshape(x, ns, node);
  }
  if (t == "permute") return permute(g, a.tensor(0), a.varints(1, "dims"));
  if (t == "transpose" || t == "swapaxes" || t == "swapdims")
    return transpose(g, a.tensor(0), a.integer(1, "dim0", 0), a.integer(2, "dim1", 1));
  if (t == "t") {
    Val x = a.tensor(0);
    return x.rank() < 2 ? x : transpose(g, x, 0, 1);
  }
  if (t == "unsqueeze") return unsqueeze(g, a.tensor(0), a.integer(1, "dim", 0));
  if (t == "squeeze") {
    std::vector<int64_t> dims;
    if (a.has(1, "dim")) dims = a.ints(*a.py(1, "dim"));
    return squeeze(g, a.tensor(0), dims);
  }
  if (t == "expand") return expand(g, a.tensor(0), a.varints(1, "size"));
  if (t == "expand_as") return expand(g, a.tensor(0), a.tensor(1).shape);
  if (t == "flip") return flip(g, a.tensor(0), a.varints(1, "dims"));
  if (t == "narrow") {
    Val x = a.tensor(0);
    int d = norm_dim(a.integer(1, "dim", 0), x.rank());
    int64_t st = a.integer(2, "start", 0), len = a.integer(3, "length", 1);
    std::vector<DimMap> maps(x.rank());
    Shape ns = x.shape;
    for (int s = 0; s < x.rank(); ++s) maps[s].new_dim = s;
    maps[d].offset = st;
    ns[d] = len;
    return g.view(x, ns, maps);
  }
  if (t == "diag") {
    Val x = a.tensor(0);
    if (a.integer(1, "diagonal", 0) != 0) throw Unsupported("off-diagonal diag");
    if (x.rank() == 2) {
      std::vector<DimMap> maps = {{0, 1, 0}, {0, 1, 0}};
      return g.view(x, {std::min(x.shape[0], x.shape[1])}, maps);
    }
    if (x.rank() != 1) throw Unsupported("diag rank");
    Val src = x;
    return g.lazy({x.shape[0], x.shape[0]}, [&g, src](const Idx& ix) {
      return "(" + ix[0] + " == " + ix[1] + " ? " + g.elem(src, {ix[0]}) + " : 0.f)";
    });
  }
  if (t == "cat" || t == "concat" || t == "concatenate" || t == "stack") {
    Val list = a.val(0, "tensors");
    if (list.kind != Val::kTuple || list.elems.empty()) throw Unsupported("cat arguments");
    int rank0 = list.elems[0].rank();
    int d = norm_dim(a.integer(1, "dim", 0), t == "stack" ? rank0 + 1 : rank0);
    std::vector<Val> parts;
    for (const Val& v : list.elems) {
      if (!v.is_tensor()) throw Unsupported("cat of a non-tensor");
      parts.push_back(t == "stack" ? unsqueeze(g, v, d) : v);
    }
    Shape ns = parts[0].shape;
    ns[d] = 0;
    std::vector<int64_t> offs;
    for (const Val& v : parts) {
      offs.push_back(ns[d]);
      ns[d] += v.shape[d];
    }
    return g.lazy(ns, [&g, parts, offs, d](const Idx& ix) {
      std::string e = "0.f";
      for (int k = static_cast<int>(parts.size()) - 1; k >= 0; --k) {
        Idx sub = ix;
        if (offs[k]) sub[d] = "(" + ix[d] + " - " + std::to_string(offs[k]) + ")";
        std::string v = g.elem(parts[k], sub);
        e = k == static_cast<int>(parts.size()) - 1
                ? v
                : "(" + ix[d] + " < " + std::to_string(offs[k + 1]) + " ? " + v + " : " + e + ")";
      }
      return e;
    });
  }
  if (t == "chunk" || t == "split") {
    Val x = a.tensor(0);
    int d = norm_dim(a.integer(2, "dim", 0), x.rank());
    std::vector<int64_t> sizes;
    if (t == "chunk") {
      int64_t n = a.integer(1, "chunks", 1);
      int64_t each = (x.shape[d] + n - 1) / n;
      for (int64_t s = 0; s < x.shape[d]; s += each) sizes.push_back(std::min(each, x.shape[d] - s));
    } else {
      std::vector<int64_t> v = a.ints(*a.py(1, "split_size_or_sections"));
      if (v.size() == 1)
        for (int64_t s = 0; s < x.shape[d]; s += v[0]) sizes.push_back(std::min(v[0], x.shape[d] - s));
      else
        sizes = v;
    }
    Val tu;
    tu.kind = Val::kTuple;
    int64_t off = 0;
    for (int64_t s : sizes) {
      std::vector<DimMap> maps(x.rank());
      Shape ns = x.shape;
      for (int k = 0; k < x.rank(); ++k) maps[k].new_dim = k;
      maps[d].offset = off;
      ns[d] = s;
      tu.elems.push_back(g.view(x, ns, maps));
      off += s;
    }
    return tu;
  }

  // ---- reductions
  static const std::map<std::string, std::string> kRed = {
      {"sum", "sum"}, {"mean", "mean"}, {"prod", "prod"}, {"amax", "max"}, {"amin", "min"},
      {"argmax", "argmax"}, {"argmin", "argmin"}, {"logsumexp", "logsumexp"},
      {"linalg_vector_norm", "norm"}, {"norm", "norm"}, {"var", "var"}, {"std", "std"},
      {"max", "max_tuple"}, {"min", "min_tuple"}, {"nansum", "sum"}};
  if (auto it = kRed.find(t); it != kRed.end()) {
    Val x = a.tensor(0);
    std::string kind = it->second;
    bool keep = false;
    const Py* kp = op.kwargs.get("keepdim");
    if (kp && kp->kind == Py::kBool) keep = kp->b;
    if (kind == "max_tuple" || kind == "min_tuple") {
      std::string base = kind.substr(0, 3);
      if (!a.has(1, "dim")) {
        std::vector<int> all;
        for (int d = 0; d < x.rank(); ++d) all.push_back(d);
        return g.reduce(node, x, all, false, base);
      }
      if (op.args.items.size() > 2 && op.args.items[2].kind == Py::kBool) keep = op.args.items[2].b;
      int d = norm_dim(a.integer(1, "dim", 0), x.rank());
      Val vals = g.reduce(node + "_values", x, {d}, keep, base);
      Val idx = g.reduce(node + "_indices", x, {d}, keep, "arg" + base);
      Val tu;
      tu.kind = Val::kTuple;
      tu.elems = {vals, idx};
      return tu;
    }
    if (kind == "norm") {
      double p = a.real(1, "ord", 2.0);
      if (t == "norm") p = a.real(1, "p", 2.0);
      if (p != 2.0) throw Unsupported("norm order");
      std::vector<int> dims = reduce_dims(a, x, 2, "dim");
      if (op.args.items.size() > 3 && op.args.items[3].kind == Py::kBool) keep = op.args.items[3].b;
      return g.reduce(node, x, dims, keep, "norm");
    }
    if ((kind == "argmax" || kind == "argmin") && !a.has(1, "dim")) {
      Val fl = g.reshape(x, {x.numel()}, node + "_flat");
      return g.reduce(node, fl, {0}, false, kind);
    }
    std::vector<int> dims = reduce_dims(a, x, 1, "dim");
    if (op.args.items.size() > 2 && op.args.items[2].kind == Py::kBool) keep = op.args.items[2].b;
    double corr = 1.0;
    if (kind == "var" || kind == "std") {
      const Py* u = op.kwargs.get("unbiased");
      if (u && u->kind == Py::kBool) corr = u->b ? 1.0 : 0.0;
      const Py* c = op.kwargs.get("correction");
      if (c && c->is_num()) corr = c->num();
    }
    if (op.kwargs.get("dtype")) throw Unsupported("reduction dtype");
    return g.reduce(node, x, dims, keep, kind, corr);
  }
  if (t == "softmax" || t == "log_softmax" || t == "module:Softmax" || t == "module:LogSoftmax") {
    Val x = a.tensor(0);
    int64_t d = t[0] == 'm' ? static_cast<int64_t>(mod_real(op, 0, "dim", -1)) : a.integer(1, "dim", -1);
    return g.softmax(node, x, norm_dim(d, x.rank()), t.find("og") != std::string::npos);
  }
  if (t == "cumsum" || t == "cumprod") {
    Val x = a.tensor(0);
    return g.cumulative(node, x, norm_dim(a.integer(1, "dim", 0), x.rank()), t == "cumprod");
  }
  if (t == "normalize") {
    Val x = a.tensor(0);
    return g.l2_normalize(node, x, norm_dim(a.integer(2, "dim", 1), x.rank()), a.real(1, "p", 2.0),
                          a.real(3, "eps", 1e-12));
  }

  // ---- norms
  if (t == "layer_norm" || t == "module:LayerNorm") {
    Val x = a.tensor(0);
    std::vector<int64_t> ns;
    Val wv, bv;
    const Val *w = nullptr, *b = nullptr;
    double eps;
    if (t == "layer_norm") {
      ns = a.ints(*a.py(1, "normalized_shape"));
      if (a.has(2, "weight")) { wv = a.tensor(2, "weight"); w = &wv; }
      if (a.has(3, "bias")) { bv = a.tensor(3, "bias"); b = &bv; }
      eps = a.real(4, "eps", 1e-5);
    } else {
      const Py* p = mod_arg(op, 0, "normalized_shape");
      if (!p) throw Unsupported("LayerNorm repr");
      ns = a.ints(*p);
      w = param(g, op, "weight", wv);
      b = param(g, op, "bias", bv);
      eps = mod_real(op, 99, "eps", 1e-5);
    }
    return g.row_norm(node, x, static_cast<int>(ns.size()), w, b, eps);
  }
  if (t == "group_norm" || t == "module:GroupNorm") {
    Val x = a.tensor(0);
    Val wv, bv;
    const Val *w = nullptr, *b = nullptr;
    int64_t groups;
    double eps;
    if (t == "group_norm") {
      groups = a.integer(1, "num_groups", 1);
      if (a.has(2, "weight")) { wv = a.tensor(2, "weight"); w = &wv; }
      if (a.has(3, "bias")) { bv = a.tensor(3, "bias"); b = &bv; }
      eps = a.real(4, "eps", 1e-5);
    } else {
      groups = static_cast<int64_t>(mod_real(op, 0, "num_groups", 1));
      w = param(g, op, "weight", wv);
      b = param(g, op, "bias", bv);
      eps = mod_real(op, 99, "eps", 1e-5);
    }
    return g.group_norm(node, x, groups, w, b, eps);
  }
  if (t == "instance_norm" || t.rfind("module:InstanceNorm", 0) == 0) {
    Val x = a.tensor(0);
    Val wv, bv;
    const Val *w = nullptr, *b = nullptr;
    double eps;
    if (t == "instance_norm") {
      if (a.has(1, "running_mean")) throw Unsupported("instance_norm with running stats");
      if (a.has(3, "weight")) { wv = a.tensor(3, "weight"); w = &wv; }
      if (a.has(4, "bias")) { bv = a.tensor(4, "bias"); b = &bv; }
      eps = a.real(7, "eps", 1e-5);
    } else {
      const Py* tr = mod_arg(op, 99, "track_running_stats");
      if (tr && tr->kind == Py::kBool && tr->b) throw Unsupported("InstanceNorm with running stats");
      w = param(g, op, "weight", wv);
      b = param(g, op, "bias", bv);
      eps = mod_real(op, 99, "eps", 1e-5);
    }
    if (x.rank() < 2) throw Unsupported("instance norm rank");
    return g.group_norm(node, x, x.shape[1], w, b, eps);
  }
  if (t == "batch_norm" || t.rfind("module:BatchNorm", 0) == 0) {
    Val x = a.tensor(0);
    Val rm, rv, wv, bv;
    bool have_w = false, have_b = false;
    double eps;
    if (t == "batch_norm") {
      const Py* tr = a.py(5, "training");
      if (tr && tr->kind == Py::kBool && tr->b) throw Unsupported("batch_norm in training mode");
      rm = a.tensor(1, "running_mean");
      rv = a.tensor(2, "running_var");
      if (a.has(3, "weight")) { wv = a.tensor(3, "weight"); have_w = true; }
      if (a.has(4, "bias")) { bv = a.tensor(4, "bias"); have_b = true; }
      eps = a.real(7, "eps", 1e-5);
    } else {
      const Py* tr = mod_arg(op, 99, "track_running_stats");
      if (tr && tr->kind == Py::kBool && !tr->b) throw Unsupported("BatchNorm without running stats");
      Val tmp;
      if (!param(g, op, "running_mean", rm) || !param(g, op, "running_var", rv))
        throw Unsupported("BatchNorm buffers missing");
      have_w = param(g, op, "weight", wv) != nullptr;
      have_b = param(g, op, "bias", bv) != nullptr;
      eps = mod_real(op, 99, "eps", 1e-5);
    }
    if (x.rank() < 2) throw Unsupported("batch norm rank");
    int64_t C = x.shape[1];
    auto chan = [&](const Val& p) {  // [C] viewed as [C, 1, ...] for broadcasting
      Val v = p;
      v.shape = Shape(x.rank() - 1, 1);
      v.shape[0] = C;
      v.strides = contiguous_strides(v.shape);
      return v;
    };
    std::vector<Val> ops = {x, chan(rm), chan(rv)};
    if (have_w) ops.push_back(chan(wv));
    if (have_b) ops.push_back(chan(bv));
    g.use_math();
    return g.ew(node, ops, [eps, have_w, have_b](const std::vector<std::string>& e) {
      std::string r = "(" + e[0] + " - " + e[1] + ") / std::sqrt(" + e[2] + " + " + flit(eps) + ")";
      size_t k = 3;
      if (have_w) r = r + " * " + e[k++];
      if (have_b) r = r + " + " + e[k++];
      return r;
    });
  }

  // ---- products
  if (t == "matmul" || t == "mm" || t == "bmm" || t == "mv" || t == "dot" || t == "inner_product_unused") {
    Val x = a.tensor(0), y = a.tensor(1);
    if ((t == "mm" && (x.rank() != 2 || y.rank() != 2)) || (t == "bmm" && (x.rank() != 3 || y.rank() != 3)))
      throw Unsupported(t + " ranks");
    return g.matmul(node, x, y, nullptr, fx);
  }
  if (t == "linear" || t == "module:Linear") {
    Val x = a.tensor(0), w, bv;
    const Val* b = nullptr;
    if (t == "linear") {
      w = a.tensor(1, "weight");
      if (a.has(2, "bias")) { bv = a.tensor(2, "bias"); b = &bv; }
    } else {
      if (!param(g, op, "weight", w)) throw Unsupported("Linear weight missing");
      b = param(g, op, "bias", bv);
    }
    if (w.rank() != 2) throw Unsupported("linear weight rank");
    Val wt = transpose(g, w, 0, 1);
    return g.matmul(node, x, wt, b, fx);
  }
  if (t == "addmm") {
    Val bias = a.tensor(0), x = a.tensor(1), y = a.tensor(2);
    if (a.real(3, "beta", 1.0) != 1.0 || a.real(4, "alpha", 1.0) != 1.0) throw Unsupported("addmm scaling");
    if (bias.rank() == 1) return g.matmul(node, x, y, &bias, fx);
    Val m = g.matmul(node + "_mm", x, y, nullptr, fx);
    return binary(g, node, m, bias, [](const std::string& p, const std::string& q) { return p + " + " + q; });
  }

  // ---- convolutions
  bool conv_fn = t == "conv1d" || t == "conv2d" || t == "conv3d";
  bool convt_fn = t == "conv_transpose1d" || t == "conv_transpose2d" || t == "conv_transpose3d";
  if (conv_fn || convt_fn) {
    Val x = a.tensor(0), w = a.tensor(1, "weight"), bv;
    const Val* b = nullptr;
    if (a.has(2, "bias")) { bv = a.tensor(2, "bias"); b = &bv; }
    int nd = w.rank() - 2;
    auto getv = [&](size_t pos, const std::string& name, int64_t def) {
      const Py* p = a.py(pos, name);
      if (!p || p->kind == Py::kNone) return std::vector<int64_t>(nd, def);
      if (p->kind == Py::kStr) {
        if (p->s == "valid") return std::vector<int64_t>(nd, 0);
        std::vector<int64_t> pad;
        for (int d = 0; d < nd; ++d) pad.push_back((w.shape[2 + d] - 1) / 2);
        return pad;
      }
      return spread(a.ints(*p), nd);
    };
    std::vector<int64_t> st = getv(3, "stride", 1), pd = getv(4, "padding", 0);
    if (convt_fn) {
      std::vector<int64_t> dl = getv(7, "dilation", 1);
      int64_t groups = a.integer(6, "groups", 1);
      return g.conv(node, x, w, b, st, pd, dl, groups, true, fx);
    }
    std::vector<int64_t> dl = getv(5, "dilation", 1);
    return g.conv(node, x, w, b, st, pd, dl, a.integer(6, "groups", 1), false, fx);
  }
  if (t == "module:Conv1d" || t == "module:Conv2d" || t == "module:Conv3d" ||
      t == "module:ConvTranspose1d" || t == "module:ConvTranspose2d" || t == "module:ConvTranspose3d") {
    int nd = t[t.size() - 2] - '0';
    bool tr = t.find("Transpose") != std::string::npos;
    Val x = a.tensor(0), w, bv;
    if (!param(g, op, "weight", w)) throw Unsupported("conv weight missing");
    const Val* b = param(g, op, "bias", bv);
    const Py* pm = mod_arg(op, 99, "padding_mode");
    if (pm && pm->kind == Py::kStr && pm->s != "zeros") throw Unsupported("padding_mode " + pm->s);
    std::vector<int64_t> pd;
    const Py* pp = mod_arg(op, 99, "padding");
    if (pp && pp->kind == Py::kStr) {
      for (int d = 0; d < nd; ++d) pd.push_back(pp->s == "valid" ? 0 : (w.shape[2 + d] - 1) / 2);
    } else {
      pd = mod_ints(op, 99, "padding", nd, std::vector<int64_t>(nd, 0));
    }
    return g.conv(node, x, w, b, mod_ints(op, 99, "stride", nd, std::vector<int64_t>(nd, 1)), pd,
                  mod_ints(op, 99, "dilation", nd, std::vector<int64_t>(nd, 1)),
                  static_cast<int64_t>(mod_real(op, 99, "groups", 1)), tr, fx);
  }

  // ---- pooling
  if (t.rfind("module:MaxPool", 0) == 0 || t.rfind("module:AvgPool", 0) == 0) {
    int nd = t[t.size() - 2] - '0';
    bool mx = t.find("Max") != std::string::npos;
    std::vector<int64_t> k = mod_ints(op, 0, "kernel_size", nd, {});
    std::vector<int64_t> st = mod_ints(op, 1, "stride", nd, k);
    std::vector<int64_t> pd = mod_ints(op, 2, "padding", nd, std::vector<int64_t>(nd, 0));
    std::vector<int64_t> dl = mx ? mod_ints(op, 3, "dilation", nd, std::vector<int64_t>(nd, 1))
                                 : std::vector<int64_t>(nd, 1);
    const Py* rm = mod_arg(op, 99, "return_indices");
    if (rm && rm->kind == Py::kBool && rm->b) throw Unsupported("pool indices");
    const Py* cip = mod_arg(op, 99, "count_include_pad");
    bool count_pad = !(cip && cip->kind == Py::kBool && !cip->b);
    if (mod_arg(op, 99, "divisor_override") && mod_arg(op, 99, "divisor_override")->kind != Py::kNone)
      throw Unsupported("divisor_override");
    return g.pool(node, a.tensor(0), nd, mx, k, st, pd, dl, count_pad, fx);
  }
  if (t == "max_pool1d" || t == "max_pool2d" || t == "max_pool3d" || t == "avg_pool1d" ||
      t == "avg_pool2d" || t == "avg_pool3d") {
    int nd = t[t.size() - 2] - '0';
    bool mx = t[0] == 'm';
    Val x = a.tensor(0);
    std::vector<int64_t> k = spread(a.ints(*a.py(1, "kernel_size")), nd);
    std::vector<int64_t> st = a.has(2, "stride") ? spread(a.ints(*a.py(2, "stride")), nd) : k;
    if (st.empty()) st = k;
    std::vector<int64_t> pd = a.has(3, "padding") ? spread(a.ints(*a.py(3, "padding")), nd) : std::vector<int64_t>(nd, 0);
    std::vector<int64_t> dl = mx && a.has(4, "dilation") ? spread(a.ints(*a.py(4, "dilation")), nd) : std::vector<int64_t>(nd, 1);
    bool count_pad = true;
    if (!mx) {
      const Py* c = a.py(5, "count_include_pad");
      if (c && c->kind == Py::kBool) count_pad = c->b;
    }
    return g.pool(node, x, nd, mx, k, st, pd, dl, count_pad, fx);
  }
  if (t.rfind("module:AdaptiveAvgPool", 0) == 0 || t.rfind("module:AdaptiveMaxPool", 0) == 0 ||
      t.rfind("adaptive_avg_pool", 0) == 0 || t.rfind("adaptive_max_pool", 0) == 0) {
    int nd = t[t.size() - 2] - '0';
    bool mx = t.find("ax") != std::string::npos;
    if (!op.shape_known) throw Unsupported("adaptive pool without a shape");
    return g.adaptive_pool(node, a.tensor(0), nd, mx, fx);
  }

  throw Unsupported("no template");
}

}  // namespace evk::sim
