// The op families of the sim's dispatch (sim_ops.cpp): internal to src/sim/. call_op builds one
// OpCall per fx node and asks each family in turn, in the order of OpCall's declarations below;
// a family answers with the node's value, or nullopt when the op is not one of its own. The
// order is part of the behaviour: an earlier family shadows a later one (max(a, b) with two
// tensors is the binary maximum before the reduction sees it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/sim_codegen.h"

namespace evk::sim {

// A call's arguments: positional or keyword, turned into values through the node environment.
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
  // The optional tensor argument i (or `name`) held in `slot`: &slot when given, else nullptr.
  const Val* optional_tensor(size_t i, const std::string& name, Val& slot) const {
    if (!has(i, name)) return nullptr;
    slot = tensor(i, name);
    return &slot;
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

// One fx node being dispatched: what every family reads. Lazy values and templates keep the
// lambdas they are given beyond the call, so those capture g and op through init-captures
// (`&g = g`), never `this`.
struct OpCall {
  Gen& g;
  const FxOp& op;
  Args a;
  const std::string& node;  // op.name, the base of the generated names
  std::string t;            // target, or "module:Class" for call_module; module_alias_table applied
  Shape fx;                 // the result's fx shape; empty when the prompt has none

  // ---- the families, in dispatch order (sim_ops.cpp)
  std::optional<Val> passthrough() const;
  std::optional<Val> unary_elementwise() const;
  std::optional<Val> parametric_unary() const;
  std::optional<Val> clamp() const;
  std::optional<Val> binary_elementwise() const;
  std::optional<Val> ternary_elementwise() const;
  std::optional<Val> triangle() const;
  std::optional<Val> elementwise_loss() const;
  std::optional<Val> other_loss() const;
  // (sim_ops_views.cpp)
  std::optional<Val> shape_query() const;
  std::optional<Val> attribute() const;
  std::optional<Val> getitem() const;
  std::optional<Val> reshape() const;
  std::optional<Val> dim_view() const;
  std::optional<Val> narrow_or_diag() const;
  std::optional<Val> concatenate() const;
  std::optional<Val> chunk_or_split() const;
  // (sim_ops_linalg.cpp)
  std::optional<Val> reduction() const;
  std::optional<Val> along_dim() const;
  std::optional<Val> layer_norm() const;
  std::optional<Val> group_norm() const;
  std::optional<Val> instance_norm() const;
  std::optional<Val> batch_norm() const;
  std::optional<Val> product() const;
  std::optional<Val> conv_function() const;
  std::optional<Val> conv_module() const;
  std::optional<Val> pool_module() const;
  std::optional<Val> pool_function() const;
  std::optional<Val> adaptive_pool() const;

  // ---- shared steps of the families
  // helper(x, p0, p1, ...) elementwise over argument 0.
  Val param_unary(const std::string& helper, std::vector<double> ps) const;
  // The canonical binary op name ("multiply" -> "mul"; max(a, b) of tensors -> "maximum").
  std::string binary_kind(bool minmax2) const;
  std::function<std::string(const std::string&, const std::string&)> binary_operator(
      const std::string& k) const;
  std::function<std::string(const std::vector<std::string>&)> loss_elem() const;
  Val min_max_with_indices(const Val& x, const std::string& base, bool keep) const;
  Val vector_norm(const Val& x, bool keep) const;
  Val batch_norm_ew(const Val& x, const Val& rm, const Val& rv, const Val* w, const Val* b,
                    double eps) const;
};

// ---- argument helpers shared by the families (sim_ops.cpp)

// A dim in [-rank, rank) as a non-negative index (a 0-d tensor has one dim to name).
int norm_dim(int64_t d, int rank);
// Module constructor arguments: positional i or keyword name.
const Py* mod_arg(const FxOp& op, size_t i, const std::string& name);
double mod_real(const FxOp& op, size_t i, const std::string& name, double def);
// An int or per-dimension ints of a module argument, spread to nd dims; def when absent.
std::vector<int64_t> mod_ints(const FxOp& op, size_t i, const std::string& name, int nd,
                              std::vector<int64_t> def);
std::vector<int64_t> spread(std::vector<int64_t> v, int nd);  // one value -> nd copies
// The module's parameter or buffer `name` (from the prompt's tensor list) in store; nullptr
// when the prompt has none.
const Val* param(Gen& g, const FxOp& op, const std::string& name, Val& store);
Val binary(Gen& g, const std::string& node, const Val& x, const Val& y,
           std::function<std::string(const std::string&, const std::string&)> f);

// ---- views (sim_ops_views.cpp)
Val permute(Gen& g, const Val& x, const std::vector<int64_t>& perm);
Val transpose(Gen& g, const Val& x, int64_t a, int64_t b);

}  // namespace evk::sim
