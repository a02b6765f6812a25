// The sim's code generator, core: values, loop emission, materialisation, views, outputs and
// the assembly of the final source file. The op dispatch lives in sim_ops*.cpp, the loop-nest
// templates in sim_kernels.cpp.
#include "sim/sim_codegen.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace evk::sim {

// ---------------------------------------------------------------- literals and values

std::string flit(double v) {
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  if (std::isnan(v)) return "NAN";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.1ff", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    s += "f";
    return v < 0 ? "(" + s + ")" : s;
  }
  std::string s = buf;
  return v < 0 ? "(" + s + ")" : s;
}

std::string ilit(int64_t v) { return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v); }

std::string ctype(const std::string& dt) {
  if (dt == "F32") return "float";
  if (dt == "F64") return "double";
  if (dt == "I32") return "int32_t";
  if (dt == "I64") return "int64_t";
  if (dt == "BOOL" || dt == "U8") return "uint8_t";
  throw Unsupported("dtype " + dt);
}

int64_t Val::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

bool Val::contiguous() const {
  if (kind != kBuf) return false;
  Shape want = contiguous_strides(shape);
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] != want[d]) return false;
  return true;
}

Val make_const(double v, bool is_int) {
  Val c;
  c.kind = Val::kConst;
  c.c = v;
  c.c_int = is_int;
  return c;
}

Val make_buf(const std::string& ptr, const Shape& shape, const std::string& dt) {
  Val b;
  b.kind = Val::kBuf;
  b.ptr = ptr;
  b.shape = shape;
  b.strides = contiguous_strides(shape);
  b.dt = dt;
  return b;
}

// ---------------------------------------------------------------- emission

Gen::Gen(const PromptView& p, const Plan& plan) : p_(p), plan_(plan) {}

void Gen::line(const std::string& s) { body_.push_back(std::string(indent_ * 2, ' ') + s); }

void Gen::open_for(const std::string& var, int64_t n, const std::string& pragma) {
  open_for_range(var, "0", std::to_string(n), pragma);
}

void Gen::open_for_range(const std::string& var, const std::string& lo, const std::string& hi,
                         const std::string& pragma) {
  if (!pragma.empty()) line(pragma);
  line("for (int64_t " + var + " = " + lo + "; " + var + " < " + hi + "; ++" + var + ") {");
  ++indent_;
}

void Gen::open_block(const std::string& header) {
  line(header);
  ++indent_;
}

void Gen::close(int n) {
  for (int k = 0; k < n; ++k) {
    --indent_;
    line("}");
  }
}

std::string Gen::par_pragma() const {
  if (!move("omp") || indent_ != 1) return "";
  return pit("omp_collapse") ? "#pragma omp parallel for collapse(3)" : "#pragma omp parallel for";
}

std::string Gen::simd_pragma(const std::string& reduction) const {
  if (!move("simd")) return "";
  if (reduction.empty() || pit("simd_no_reduction")) return "#pragma omp simd";
  return "#pragma omp simd reduction(" + reduction + ")";
}

int Gen::open_loops_except(const Idx& xi, const Shape& shape, int dim) {
  int opened = 0;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d == dim) continue;
    open_for(xi[d], shape[d], opened == 0 ? par_pragma() : "");
    ++opened;
  }
  return opened;
}

Idx Gen::row_index(int rank, int dim) {
  Idx xi(rank);
  for (int d = 0; d < rank; ++d) xi[d] = d == dim ? "r" : "k" + std::to_string(d);
  return xi;
}

Idx Gen::open_loops(const Shape& shape, const std::string& prefix, bool par, bool simd) {
  Idx ix;
  int r = static_cast<int>(shape.size());
  for (int d = 0; d < r; ++d) {
    std::string pr;
    if (d == 0 && par) pr = par_pragma();
    if (d == r - 1 && simd && !simd_pragma().empty())
      pr = pr.empty() ? simd_pragma() : pr + " simd";
    if (pr.rfind("#pragma omp parallel for simd", 0) == 0 && pit("omp_collapse"))
      pr = "#pragma omp parallel for simd";  // collapse(3) on a single loop never compiles
    ix.push_back(prefix + std::to_string(d));
    open_for(ix.back(), shape[d], pr);
  }
  return ix;
}

std::string Gen::fresh(const std::string& base) {
  std::string s = "t_";
  for (char c : base) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  int n = names_[s]++;
  return n == 0 ? s : s + "_" + std::to_string(n);
}

// Small inline helpers the naive coder writes for operators whose operand appears twice.
namespace {
const std::map<std::string, std::string>& helper_bodies() {
  static const std::map<std::string, std::string> h = {
      {"op_relu", "(float v) { return v < 0.f ? 0.f : v; }"},
      {"op_relu6", "(float v) { return v < 0.f ? 0.f : (v > 6.f ? 6.f : v); }"},
      {"op_sigmoid", "(float v) { return 1.f / (1.f + std::exp(-v)); }"},
      {"op_gelu", "(float v) { return 0.5f * v * (1.f + std::erf(v * 0.70710678118f)); }"},
      {"op_gelu_tanh",
       "(float v) { return 0.5f * v * (1.f + std::tanh(0.79788456080f * (v + 0.044715f * v * v * v))); }"},
      {"op_elu", "(float v, float a) { return v > 0.f ? v : a * (std::exp(v) - 1.f); }"},
      {"op_celu",
       "(float v, float a) { return (v > 0.f ? v : 0.f) + (v < 0.f ? a * (std::exp(v / a) - 1.f) : 0.f); }"},
      {"op_selu",
       "(float v) { return 1.05070098735548f * (v > 0.f ? v : 1.67326324235437f * (std::exp(v) - 1.f)); }"},
      {"op_leaky_relu", "(float v, float s) { return v > 0.f ? v : v * s; }"},
      {"op_hardsigmoid", "(float v) { float t = v / 6.f + 0.5f; return t < 0.f ? 0.f : (t > 1.f ? 1.f : t); }"},
      {"op_hardswish", "(float v) { float t = v + 3.f; t = t < 0.f ? 0.f : (t > 6.f ? 6.f : t); return v * t / 6.f; }"},
      {"op_clamp", "(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }"},
      {"op_softplus",
       "(float v, float beta, float th) { return v * beta > th ? v : std::log1p(std::exp(v * beta)) / beta; }"},
      {"op_softsign", "(float v) { return v / (1.f + std::fabs(v)); }"},
      {"op_silu", "(float v) { return v / (1.f + std::exp(-v)); }"},
      {"op_mish",
       "(float v) { float sp = v > 20.f ? v : std::log1p(std::exp(v)); return v * std::tanh(sp); }"},
      {"op_logsigmoid",
       "(float v) { return v < 0.f ? v - std::log1p(std::exp(v)) : -std::log1p(std::exp(-v)); }"},
      {"op_sq", "(float v) { return v * v; }"},
      {"op_sign", "(float v) { return v > 0.f ? 1.f : (v < 0.f ? -1.f : 0.f); }"},
      {"op_hardshrink", "(float v, float l) { return (v > l || v < -l) ? v : 0.f; }"},
      {"op_softshrink", "(float v, float l) { return v > l ? v - l : (v < -l ? v + l : 0.f); }"},
      {"op_threshold", "(float v, float th, float val) { return v > th ? v : val; }"},
      {"op_tanhshrink", "(float v) { return v - std::tanh(v); }"},
      {"op_max2", "(float a, float b) { return a > b ? a : b; }"},
      {"op_min2", "(float a, float b) { return a < b ? a : b; }"},
      {"op_floordiv", "(float a, float b) { return std::floor(a / b); }"},
      {"op_remainder",
       "(float a, float b) { float r = std::fmod(a, b); if (r != 0.f && ((r < 0.f) != (b < 0.f))) r += b; return r; }"},
      {"op_kl_div", "(float lp, float t) { return t > 0.f ? t * (std::log(t) - lp) : 0.f; }"},
      {"op_huber",
       "(float d, float delta) { float a = std::fabs(d); return a < delta ? 0.5f * d * d : delta * (a - 0.5f * delta); }"},
      {"op_smooth_l1",
       "(float d, float beta) { float a = std::fabs(d); return a < beta ? 0.5f * d * d / beta : a - 0.5f * beta; }"},
      {"op_bce",
       "(float p, float t) { float lp = std::log(p), lq = std::log(1.f - p); lp = lp < -100.f ? -100.f : lp; "
       "lq = lq < -100.f ? -100.f : lq; return -(t * lp + (1.f - t) * lq); }"},
      {"op_bce_logits",
       "(float x, float t) { return (x > 0.f ? x : 0.f) - x * t + std::log1p(std::exp(-std::fabs(x))); }"},
  };
  return h;
}
}  // namespace

std::string Gen::helper(const std::string& name) {
  auto it = helper_bodies().find(name);
  if (it == helper_bodies().end()) throw Unsupported("no helper " + name);
  if (!helpers_.count(name)) {
    helpers_[name] = "static inline float " + name + it->second;
    helper_order_.push_back(name);
  }
  use_math();
  return name;
}

// ---------------------------------------------------------------- values

std::string Gen::flat(const Idx& idx, const Shape& shape) {
  std::string e;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      if (!e.empty()) e = "(" + e + ")";
      continue;
    }
    e = e.empty() ? idx[d] : "(" + e + ") * " + std::to_string(shape[d]) + " + " + idx[d];
  }
  return e.empty() ? "0" : e;
}

std::string Gen::elem_raw(const Val& v, const Idx& idx) {
  if (v.kind == Val::kConst) return v.c_int ? ilit(static_cast<int64_t>(v.c)) : flit(v.c);
  if (v.kind == Val::kLazy) return (*v.fn)(idx);
  if (v.kind != Val::kBuf) throw Unsupported("a tuple used as a tensor");
  std::string e;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 1 || v.strides[d] == 0) continue;
    std::string term = v.strides[d] == 1 ? idx[d] : idx[d] + " * " + ilit(v.strides[d]);
    e = e.empty() ? term : e + " + " + term;
  }
  if (v.offset != 0) e = e.empty() ? ilit(v.offset) : ilit(v.offset) + " + " + e;
  return v.ptr + "[" + (e.empty() ? "0" : e) + "]";
}

std::string Gen::elem(const Val& v, const Idx& idx) {
  std::string e = elem_raw(v, idx);
  if (v.kind == Val::kBuf && v.dt != "F32") return "static_cast<float>(" + e + ")";
  return e;
}

Idx Gen::bcast(const Val& operand, const Idx& out_idx, const Shape& /*out_shape*/) {
  Idx ix;
  int r = operand.rank(), R = static_cast<int>(out_idx.size());
  for (int d = 0; d < r; ++d) ix.push_back(operand.shape[d] == 1 ? "0" : out_idx[d + R - r]);
  return ix;
}

Val Gen::lazy(const Shape& shape, std::function<std::string(const Idx&)> fn) {
  Val v;
  v.kind = Val::kLazy;
  v.shape = shape;
  v.fn = std::make_shared<std::function<std::string(const Idx&)>>(std::move(fn));
  return v;
}

namespace {
Shape broadcast_shapes(const std::vector<Val>& ops) {
  Shape out;
  for (const Val& v : ops) {
    if (!v.is_tensor()) continue;
    if (v.shape.size() > out.size()) out.insert(out.begin(), v.shape.size() - out.size(), 1);
    size_t off = out.size() - v.shape.size();
    for (size_t d = 0; d < v.shape.size(); ++d) {
      int64_t a = out[off + d], b = v.shape[d];
      if (a != b && a != 1 && b != 1) throw Unsupported("shapes do not broadcast");
      out[off + d] = a == 1 ? b : a;
    }
  }
  return out;
}
}  // namespace

Val Gen::ew(const std::string& /*node*/, const std::vector<Val>& operands,
            std::function<std::string(const std::vector<std::string>&)> combine,
            const Shape* shape) {
  bool any_tensor = false;
  for (const Val& v : operands) any_tensor |= v.is_tensor();
  if (!any_tensor) throw Unsupported("arithmetic on constants only");
  Shape out = shape ? *shape : broadcast_shapes(operands);
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  ++feat_.ew_ops;
  bool flat_pitfall = pit("broadcast_ignored") || (move("fuse") && pit("fuse_broadcast"));
  std::vector<bool> broadcast(operands.size(), false);
  for (size_t k = 0; k < operands.size(); ++k) {
    const Val& v = operands[k];
    if (v.is_tensor() && v.rank() > 0 && v.numel() < n) {
      feat_.has_broadcast = true;
      broadcast[k] = v.kind == Val::kBuf;
    }
  }
  auto ops = operands;
  return lazy(out, [this, ops, out, combine, broadcast, flat_pitfall](const Idx& ix) {
    std::vector<std::string> es;
    for (size_t k = 0; k < ops.size(); ++k) {
      const Val& v = ops[k];
      if (!v.is_tensor()) {
        es.push_back(elem(v, {}));
      } else if (flat_pitfall && broadcast[k]) {  // indexes the small operand like the output
        es.push_back(v.ptr + "[" + flat(ix, out) + "]");
      } else {
        es.push_back(elem(v, bcast(v, ix, out)));
      }
    }
    return "(" + combine(es) + ")";
  });
}

Val Gen::finish_ew(const std::string& node, Val v) {
  if (v.kind == Val::kLazy && (!move("fuse") || uses(node) > 1)) return materialize(v, node);
  return v;
}

Val Gen::dest(const std::string& node, const Shape& shape, const std::string& dt) {
  auto f = final_.find(node);
  bool forced = pit("no_init_reduction") && feat_.accum_final;
  if (f != final_.end() && (move("notemps") || forced)) {
    const TensorLine* t = nullptr;
    for (const TensorLine& tl : p_.tensors)
      if (tl.output && tl.index == f->second) t = &tl;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    int64_t m = 1;
    if (t)
      for (int64_t d : t->shape) m *= d;
    if (t && n == m && t->dtype == dt && !outs_written_.count(f->second)) {
      outs_written_.insert(f->second);
      Val b = make_buf(tensor_ptr(*t), shape, dt);
      return b;
    }
  }
  std::string name = fresh(node);
  std::string ct = ctype(dt);
  feat_.uses_temps = true;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  line("std::vector<" + ct + "> " + name + "_buf(" + std::to_string(n) + ");");
  line(ct + "* " + name + " = " + name + "_buf.data();");
  return make_buf(name, shape, dt);
}

Val Gen::materialize(const Val& v, const std::string& node) {
  if (v.kind == Val::kConst) throw Unsupported("a constant where a tensor was expected");
  if (v.kind == Val::kTuple) throw Unsupported("a tuple where a tensor was expected");
  Val d = dest(node, v.shape, v.kind == Val::kBuf ? v.dt : "F32");
  Idx ix = open_loops(v.shape, "i", true, true);
  line(d.ptr + "[" + flat(ix, v.shape) + "] = " + elem_raw(v, ix) + ";");
  close(static_cast<int>(ix.size()));
  return d;
}

Val Gen::as_contiguous(const Val& v, const std::string& node) {
  if (v.kind == Val::kBuf && v.contiguous()) return v;
  return materialize(v, node + "_c");
}

Val Gen::view(const Val& v, const Shape& new_shape, const std::vector<DimMap>& maps) {
  if (v.kind == Val::kConst) return v;
  if (!v.is_tensor()) throw Unsupported("a view of a non-tensor");
  if (static_cast<int>(maps.size()) != v.rank()) throw Unsupported("view rank mismatch");
  if (v.kind == Val::kBuf) {
    Val b = v;
    b.shape = new_shape;
    b.strides.assign(new_shape.size(), 0);
    for (int s = 0; s < v.rank(); ++s) {
      b.offset += maps[s].offset * v.strides[s];
      if (maps[s].new_dim >= 0) b.strides[maps[s].new_dim] += maps[s].scale * v.strides[s];
    }
    return b;
  }
  Val src = v;
  return lazy(new_shape, [this, src, maps](const Idx& ix) {
    Idx si;
    for (const DimMap& m : maps) {
      if (m.new_dim < 0) {
        si.push_back(ilit(m.offset));
        continue;
      }
      std::string e = ix[m.new_dim];
      if (m.scale != 1) e = ilit(m.scale) + " * " + e;
      if (m.offset != 0) e = ilit(m.offset) + " + " + e;
      si.push_back(m.scale == 1 && m.offset == 0 ? e : "(" + e + ")");
    }
    return elem(src, si);
  });
}

Val Gen::reshape(const Val& v, const Shape& new_shape, const std::string& node) {
  if (v.kind == Val::kConst) return v;
  Val c = as_contiguous(v, node);
  Val b = c;
  b.shape = new_shape;
  b.strides = contiguous_strides(new_shape);
  if (b.numel() != c.numel()) throw Unsupported("reshape changes the element count");
  return b;
}

std::string Gen::tensor_ptr(const TensorLine& t) {
  std::string var = (t.output ? "out" : "in") + std::to_string(t.index);
  if (!decls_.count(var)) {
    std::string ct = ctype(t.dtype);
    if (t.dtype == "I64") feat_.has_i64 = true;
    if (t.dtype == "I64" && pit("int64_as_int32")) ct = "int32_t";
    std::string cq = t.output ? "" : "const ";
    decls_[var] = cq + ct + "* " + var + " = static_cast<" + cq + ct + "*>(" +
                  (t.output ? "out[" : "in[") + std::to_string(t.index) + "].data);  // " + t.name +
                  " " + t.dtype + " [" + [&] {
                    std::string s;
                    for (size_t d = 0; d < t.shape.size(); ++d)
                      s += (d ? ", " : "") + std::to_string(t.shape[d]);
                    return s;
                  }() + "]";
    decl_order_.push_back(var);
  }
  return var;
}

const TensorLine* Gen::tensor_named(const std::string& name) const {
  for (const TensorLine& t : p_.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

int Gen::uses(const std::string& node) const {
  auto it = uses_.find(node);
  return it == uses_.end() ? 0 : it->second;
}

// ---------------------------------------------------------------- the graph

namespace {
void collect_names(const Py& v, std::vector<std::string>& out) {
  if (v.kind == Py::kName) out.push_back(v.s);
  for (const Py& x : v.items) collect_names(x, out);
  for (const auto& [k, x] : v.kw) collect_names(x, out);
}
}  // namespace

void Gen::count_uses() {
  std::set<std::string> nodes;
  for (const FxOp& op : p_.ops) nodes.insert(op.name);
  for (const FxOp& op : p_.ops) {
    std::vector<std::string> names;
    collect_names(op.args, names);
    collect_names(op.kwargs, names);
    for (const std::string& n : names)
      if (nodes.count(n)) ++uses_[n];
  }
  // Nodes that feed exactly one output slot and nothing else can be written there directly.
  for (const FxOp& op : p_.ops) {
    if (op.kind != "output" || op.args.items.empty()) continue;
    const Py& r = op.args.items[0];
    std::vector<const Py*> slots;
    if (r.is_seq())
      for (const Py& x : r.items) slots.push_back(&x);
    else
      slots.push_back(&r);
    for (size_t k = 0; k < slots.size(); ++k)
      if (slots[k]->kind == Py::kName && uses(slots[k]->s) == 1)
        final_[slots[k]->s] = static_cast<int>(k);
  }
}

void Gen::unknown(const FxOp& op, const std::string& why) {
  std::string t = op.target;
  if (op.kind == "call_module") t = op.module.kind == Py::kNone ? op.target : op.module.s;
  unknown_ops_.push_back(t + " (" + why + ")");
  std::string fn;
  for (char c : t) fn += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::string name = fresh(op.name);
  // The weak-model failure: call a helper that was never written.
  line("float* " + name + " = evk_" + fn + "_kernel(in, out);");
  env_[op.name] = make_buf(name, op.shape_known ? op.shape : Shape{});
}

void Gen::emit_outputs(const FxOp& out_op) {
  if (out_op.args.items.empty()) return;
  const Py& r = out_op.args.items[0];
  std::vector<const Py*> slots;
  if (r.is_seq())
    for (const Py& x : r.items) slots.push_back(&x);
  else
    slots.push_back(&r);
  for (size_t k = 0; k < slots.size(); ++k) {
    const TensorLine* t = nullptr;
    for (const TensorLine& tl : p_.tensors)
      if (tl.output && tl.index == static_cast<int>(k)) t = &tl;
    if (!t) throw Unsupported("no out[" + std::to_string(k) + "] in the tensor list");
    if (outs_written_.count(static_cast<int>(k))) continue;
    Val v;
    if (slots[k]->kind == Py::kName && env_.count(slots[k]->s)) {
      v = env_[slots[k]->s];
    } else if (slots[k]->is_num()) {
      v = make_const(slots[k]->num());
    } else {
      throw Unsupported("an output that is not a node");
    }
    std::string o = tensor_ptr(*t);
    Shape os = t->shape;
    int64_t n = 1;
    for (int64_t d : os) n *= d;
    if (v.is_tensor() && v.numel() != n) throw Unsupported("output element count differs");
    if (v.kind == Val::kBuf && v.shape != os) {
      if (v.contiguous()) {
        v.shape = os;
        v.strides = contiguous_strides(os);
      } else {
        v = materialize(v, "result");
        v.shape = os;
        v.strides = contiguous_strides(os);
      }
    }
    if (v.kind == Val::kLazy && v.shape != os) v = reshape(materialize(v, "result"), os, "result");
    feat_.final_copy = true;
    std::string ct = ctype(t->dtype);
    if (t->dtype == "I64" && pit("int64_as_int32")) ct = "int32_t";
    auto cast = [&](const std::string& e, bool raw_int) {
      if (ct == "float" || raw_int) return e;
      if (t->dtype == "BOOL") return "static_cast<uint8_t>(" + e + " != 0.f)";
      return "static_cast<" + ct + ">(" + e + ")";
    };
    bool raw_int = v.kind == Val::kBuf && v.dt != "F32" && t->dtype != "F32";
    if (v.kind == Val::kBuf && v.contiguous()) {
      std::string bound = std::to_string(pit("off_by_one_write") ? n - 1 : n);
      std::string pr = par_pragma();
      if (move("simd")) pr = pr.empty() ? simd_pragma() : pr + " simd";
      if (pr.find("collapse") != std::string::npos && pr.find("simd") != std::string::npos)
        pr = "#pragma omp parallel for simd";
      open_for_range("i", "0", bound, pr);
      std::string src = v.ptr + "[" + (v.offset ? ilit(v.offset) + " + i" : std::string("i")) + "]";
      if (!raw_int && v.dt != "F32") src = "static_cast<float>(" + src + ")";
      line(o + "[i] = " + cast(src, raw_int) + ";");
      close();
    } else {
      Shape loop = os;
      Idx ix = open_loops(os, "i", true, true);
      if (pit("off_by_one_write") && !os.empty()) {  // the last row/column is never written
        body_.pop_back();
        --indent_;
        line("for (int64_t " + ix.back() + " = 0; " + ix.back() + " < " +
             std::to_string(os.back() - 1) + "; ++" + ix.back() + ") {");
        ++indent_;
      }
      std::string e = raw_int ? elem_raw(v, ix) : elem(v, ix);
      line(o + "[" + flat(ix, os) + "] = " + cast(e, raw_int) + ";");
      close(static_cast<int>(ix.size()));
    }
    outs_written_.insert(static_cast<int>(k));
  }
}

GenResult Gen::run() {
  count_uses();
  // The accumulation-into-output pitfall needs to know up front whether an output is produced
  // by a reduction or a product.
  static const std::set<std::string> kAccum = {
      "sum", "mean", "prod", "amax", "amin", "max", "min", "matmul", "mm", "bmm", "mv", "linear",
      "Linear", "Conv1d", "Conv2d", "Conv3d", "conv1d", "conv2d", "conv3d", "addmm", "norm",
      "linalg_vector_norm", "linalg_norm"};
  for (const FxOp& op : p_.ops) {
    std::string t = op.kind == "call_module" && op.module.kind == Py::kCall ? op.module.s : op.target;
    if (kAccum.count(t) && final_.count(op.name) && op.shape_known) feat_.accum_final = true;
  }
  for (const FxOp& op : p_.ops) {
    cur_ = &op;
    if (op.kind == "output") {
      try {
        emit_outputs(op);
      } catch (const Unsupported& e) {
        unknown(op, e.what());
      }
      continue;
    }
    try {
      Val v;
      if (op.kind == "placeholder") {
        const TensorLine* t = nullptr;
        for (const TensorLine& tl : p_.tensors)
          if (!tl.output && tl.index == placeholder_) t = &tl;
        ++placeholder_;
        if (!t) throw Unsupported("no tensor line for this input");
        v = make_buf(tensor_ptr(*t), t->shape, t->dtype);
      } else if (op.kind == "get_attr") {
        const TensorLine* t = tensor_named("param." + op.target);
        if (!t) throw Unsupported("attribute is not a listed tensor");
        v = make_buf(tensor_ptr(*t), t->shape, t->dtype);
      } else {
        v = call(op);
      }
      if (v.kind == Val::kLazy && (!move("fuse") || uses(op.name) > 1)) v = materialize(v, op.name);
      if (op.shape_known && v.is_tensor() && v.shape != op.shape) {
        int64_t n = 1;
        for (int64_t d : op.shape) n *= d;
        if (n != v.numel()) throw Unsupported("template computed the wrong shape");
        v = reshape(v, op.shape, op.name);
      }
      env_[op.name] = v;
    } catch (const Unsupported& e) {
      unknown(op, e.what());
    }
  }
  GenResult r;
  r.features = feat_;
  r.unknown_ops = unknown_ops_;
  r.ok = unknown_ops_.empty();
  r.code = assemble();
  return r;
}

std::string Gen::assemble() {
  std::ostringstream s;
  for (const std::string& p : plan_.pitfalls) s << "// evk-pitfall: " << p << "\n";
  s << "// evk-sim-moves:";
  for (size_t k = 0; k < plan_.moves.size(); ++k) {
    s << (k ? "," : " ") << plan_.moves[k].first;
    if (plan_.moves[k].second) s << ":" << plan_.moves[k].second;
  }
  if (plan_.moves.empty()) s << " none";
  s << "\n// Written by evokernel's offline coder (sim) from per-operator loop templates;"
       " not a language model.\n";
  bool drop_vector = pit("missing_header") && feat_.uses_temps;
  bool drop_cmath = pit("missing_header") && !drop_vector;
  s << "#include <cstdint>\n";
  if (feat_.uses_math && !drop_cmath) s << "#include <cmath>\n";
  if (feat_.uses_temps && !drop_vector) s << "#include <vector>\n";
  s << "\n#include \"evokernel/kernel_abi.h\"\n\n";
  for (const std::string& h : helper_order_) s << helpers_[h] << "\n";
  if (!helper_order_.empty()) s << "\n";
  if (pit("wrong_abi"))
    s << "extern \"C\" int evk_forward(evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t n_out) {\n";
  else
    s << "extern \"C\" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out,\n"
         "                                        int32_t n_out) {\n";
  s << "  (void)n_in;\n  (void)n_out;\n";
  for (const std::string& v : decl_order_) s << "  " << decls_[v] << "\n";
  for (const std::string& l : body_) s << l << "\n";
  if (!pit("missing_return")) s << "  return 0;\n";
  s << "}\n";
  return s.str();
}

GenResult generate(const PromptView& p, const Plan& plan) {
  Gen g(p, plan);
  return g.run();
}

}  // namespace evk::sim
