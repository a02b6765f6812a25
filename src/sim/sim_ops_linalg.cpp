// The sim's loop-nest families (sim_ops.h): reductions, softmax-like ops along a dim, norms,
// products, convolutions and pooling. Each reads the torch call (or the module's constructor
// and parameters) into the arguments of one Gen template (sim_kernels.cpp) and checks the
// options the template does not cover.
#include "sim/sim_ops.h"

namespace evk::sim {
namespace {

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

// keepdim as a keyword; positional forms are read where their position is known.
bool keepdim_kwarg(const FxOp& op) {
  const Py* kp = op.kwargs.get("keepdim");
  return kp && kp->kind == Py::kBool ? kp->b : false;
}

}  // namespace

// ---------------------------------------------------------------- reductions

std::optional<Val> OpCall::reduction() const {
  // clang-format off
  static const std::map<std::string, std::string> kRed = {
      {"sum", "sum"}, {"mean", "mean"}, {"prod", "prod"}, {"amax", "max"}, {"amin", "min"},
      {"argmax", "argmax"}, {"argmin", "argmin"}, {"logsumexp", "logsumexp"},
      {"linalg_vector_norm", "norm"}, {"norm", "norm"}, {"var", "var"}, {"std", "std"},
      {"max", "max_tuple"}, {"min", "min_tuple"}, {"nansum", "sum"}};
  // clang-format on
  auto it = kRed.find(t);
  if (it == kRed.end()) return std::nullopt;
  Val x = a.tensor(0);
  std::string kind = it->second;
  bool keep = keepdim_kwarg(op);
  if (kind == "max_tuple" || kind == "min_tuple")
    return min_max_with_indices(x, kind.substr(0, 3), keep);
  if (kind == "norm") return vector_norm(x, keep);
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

// max / min: over everything without a dim, else the (values, indices) pair along it.
Val OpCall::min_max_with_indices(const Val& x, const std::string& base, bool keep) const {
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

// The 2-norm (other orders have no template).
Val OpCall::vector_norm(const Val& x, bool keep) const {
  double p = a.real(1, "ord", 2.0);
  if (t == "norm") p = a.real(1, "p", 2.0);
  if (p != 2.0) throw Unsupported("norm order");
  std::vector<int> dims = reduce_dims(a, x, 2, "dim");
  if (op.args.items.size() > 3 && op.args.items[3].kind == Py::kBool) keep = op.args.items[3].b;
  return g.reduce(node, x, dims, keep, "norm");
}

// Ops along one dim: softmax, cumulative sums and products, p-normalisation.
std::optional<Val> OpCall::along_dim() const {
  if (t == "softmax" || t == "log_softmax" || t == "module:Softmax" || t == "module:LogSoftmax") {
    Val x = a.tensor(0);
    int64_t d =
        t[0] == 'm' ? static_cast<int64_t>(mod_real(op, 0, "dim", -1)) : a.integer(1, "dim", -1);
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
  return std::nullopt;
}

// ---------------------------------------------------------------- norms

std::optional<Val> OpCall::layer_norm() const {
  if (t != "layer_norm" && t != "module:LayerNorm") return std::nullopt;
  Val x = a.tensor(0);
  std::vector<int64_t> ns;
  Val wv, bv;
  const Val *w = nullptr, *b = nullptr;
  double eps;
  if (t == "layer_norm") {
    ns = a.ints(*a.py(1, "normalized_shape"));
    w = a.optional_tensor(2, "weight", wv);
    b = a.optional_tensor(3, "bias", bv);
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

std::optional<Val> OpCall::group_norm() const {
  if (t != "group_norm" && t != "module:GroupNorm") return std::nullopt;
  Val x = a.tensor(0);
  Val wv, bv;
  const Val *w = nullptr, *b = nullptr;
  int64_t groups;
  double eps;
  if (t == "group_norm") {
    groups = a.integer(1, "num_groups", 1);
    w = a.optional_tensor(2, "weight", wv);
    b = a.optional_tensor(3, "bias", bv);
    eps = a.real(4, "eps", 1e-5);
  } else {
    groups = static_cast<int64_t>(mod_real(op, 0, "num_groups", 1));
    w = param(g, op, "weight", wv);
    b = param(g, op, "bias", bv);
    eps = mod_real(op, 99, "eps", 1e-5);
  }
  return g.group_norm(node, x, groups, w, b, eps);
}

// Group norm with one group per channel.
std::optional<Val> OpCall::instance_norm() const {
  if (t != "instance_norm" && t.rfind("module:InstanceNorm", 0) != 0) return std::nullopt;
  Val x = a.tensor(0);
  Val wv, bv;
  const Val *w = nullptr, *b = nullptr;
  double eps;
  if (t == "instance_norm") {
    if (a.has(1, "running_mean")) throw Unsupported("instance_norm with running stats");
    w = a.optional_tensor(3, "weight", wv);
    b = a.optional_tensor(4, "bias", bv);
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

// Inference mode only: the running statistics, elementwise.
std::optional<Val> OpCall::batch_norm() const {
  if (t != "batch_norm" && t.rfind("module:BatchNorm", 0) != 0) return std::nullopt;
  Val x = a.tensor(0);
  Val rm, rv, wv, bv;
  bool have_w = false, have_b = false;
  double eps;
  if (t == "batch_norm") {
    const Py* tr = a.py(5, "training");
    if (tr && tr->kind == Py::kBool && tr->b) throw Unsupported("batch_norm in training mode");
    rm = a.tensor(1, "running_mean");
    rv = a.tensor(2, "running_var");
    if (a.has(3, "weight")) {
      wv = a.tensor(3, "weight");
      have_w = true;
    }
    if (a.has(4, "bias")) {
      bv = a.tensor(4, "bias");
      have_b = true;
    }
    eps = a.real(7, "eps", 1e-5);
  } else {
    const Py* tr = mod_arg(op, 99, "track_running_stats");
    if (tr && tr->kind == Py::kBool && !tr->b) throw Unsupported("BatchNorm without running stats");
    if (!param(g, op, "running_mean", rm) || !param(g, op, "running_var", rv))
      throw Unsupported("BatchNorm buffers missing");
    have_w = param(g, op, "weight", wv) != nullptr;
    have_b = param(g, op, "bias", bv) != nullptr;
    eps = mod_real(op, 99, "eps", 1e-5);
  }
  if (x.rank() < 2) throw Unsupported("batch norm rank");
  return batch_norm_ew(x, rm, rv, have_w ? &wv : nullptr, have_b ? &bv : nullptr, eps);
}

// (x - mean) / sqrt(var + eps) [* w] [+ b], each statistic and parameter per channel (dim 1).
Val OpCall::batch_norm_ew(const Val& x, const Val& rm, const Val& rv, const Val* w, const Val* b,
                          double eps) const {
  bool have_w = w != nullptr, have_b = b != nullptr;
  int64_t C = x.shape[1];
  auto chan = [&](const Val& p) {  // [C] viewed as [C, 1, ...] for broadcasting
    Val v = p;
    v.shape = Shape(x.rank() - 1, 1);
    v.shape[0] = C;
    v.strides = contiguous_strides(v.shape);
    return v;
  };
  std::vector<Val> ops = {x, chan(rm), chan(rv)};
  if (have_w) ops.push_back(chan(*w));
  if (have_b) ops.push_back(chan(*b));
  g.use_math();
  return g.ew(node, ops, [eps, have_w, have_b](const std::vector<std::string>& e) {
    std::string r = "(" + e[0] + " - " + e[1] + ") / std::sqrt(" + e[2] + " + " + flit(eps) + ")";
    size_t k = 3;
    if (have_w) r = r + " * " + e[k++];
    if (have_b) r = r + " + " + e[k++];
    return r;
  });
}

// ---------------------------------------------------------------- products

std::optional<Val> OpCall::product() const {
  if (t == "matmul" || t == "mm" || t == "bmm" || t == "mv" || t == "dot" ||
      t == "inner_product_unused") {
    Val x = a.tensor(0), y = a.tensor(1);
    if ((t == "mm" && (x.rank() != 2 || y.rank() != 2)) ||
        (t == "bmm" && (x.rank() != 3 || y.rank() != 3)))
      throw Unsupported(t + " ranks");
    return g.matmul(node, x, y, nullptr, fx);
  }
  if (t == "linear" || t == "module:Linear") {
    Val x = a.tensor(0), w, bv;
    const Val* b = nullptr;
    if (t == "linear") {
      w = a.tensor(1, "weight");
      b = a.optional_tensor(2, "bias", bv);
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
    if (a.real(3, "beta", 1.0) != 1.0 || a.real(4, "alpha", 1.0) != 1.0)
      throw Unsupported("addmm scaling");
    if (bias.rank() == 1) return g.matmul(node, x, y, &bias, fx);
    Val m = g.matmul(node + "_mm", x, y, nullptr, fx);
    return binary(g, node, m, bias,
                  [](const std::string& p, const std::string& q) { return p + " + " + q; });
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- convolutions

std::optional<Val> OpCall::conv_function() const {
  bool conv_fn = t == "conv1d" || t == "conv2d" || t == "conv3d";
  bool convt_fn = t == "conv_transpose1d" || t == "conv_transpose2d" || t == "conv_transpose3d";
  if (!conv_fn && !convt_fn) return std::nullopt;
  Val x = a.tensor(0), w = a.tensor(1, "weight"), bv;
  const Val* b = nullptr;
  b = a.optional_tensor(2, "bias", bv);
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

std::optional<Val> OpCall::conv_module() const {
  if (t != "module:Conv1d" && t != "module:Conv2d" && t != "module:Conv3d" &&
      t != "module:ConvTranspose1d" && t != "module:ConvTranspose2d" &&
      t != "module:ConvTranspose3d")
    return std::nullopt;
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

// ---------------------------------------------------------------- pooling

std::optional<Val> OpCall::pool_module() const {
  if (t.rfind("module:MaxPool", 0) != 0 && t.rfind("module:AvgPool", 0) != 0) return std::nullopt;
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

std::optional<Val> OpCall::pool_function() const {
  if (t != "max_pool1d" && t != "max_pool2d" && t != "max_pool3d" && t != "avg_pool1d" &&
      t != "avg_pool2d" && t != "avg_pool3d")
    return std::nullopt;
  int nd = t[t.size() - 2] - '0';
  bool mx = t[0] == 'm';
  Val x = a.tensor(0);
  std::vector<int64_t> k = spread(a.ints(*a.py(1, "kernel_size")), nd);
  std::vector<int64_t> st = a.has(2, "stride") ? spread(a.ints(*a.py(2, "stride")), nd) : k;
  if (st.empty()) st = k;
  std::vector<int64_t> pd =
      a.has(3, "padding") ? spread(a.ints(*a.py(3, "padding")), nd) : std::vector<int64_t>(nd, 0);
  std::vector<int64_t> dl = mx && a.has(4, "dilation") ? spread(a.ints(*a.py(4, "dilation")), nd)
                                                       : std::vector<int64_t>(nd, 1);
  bool count_pad = true;
  if (!mx) {
    const Py* c = a.py(5, "count_include_pad");
    if (c && c->kind == Py::kBool) count_pad = c->b;
  }
  return g.pool(node, x, nd, mx, k, st, pd, dl, count_pad, fx);
}

std::optional<Val> OpCall::adaptive_pool() const {
  if (t.rfind("module:AdaptiveAvgPool", 0) != 0 && t.rfind("module:AdaptiveMaxPool", 0) != 0 &&
      t.rfind("adaptive_avg_pool", 0) != 0 && t.rfind("adaptive_max_pool", 0) != 0)
    return std::nullopt;
  int nd = t[t.size() - 2] - '0';
  bool mx = t.find("ax") != std::string::npos;
  if (!op.shape_known) throw Unsupported("adaptive pool without a shape");
  return g.adaptive_pool(node, a.tensor(0), nd, mx, fx);
}

}  // namespace evk::sim
