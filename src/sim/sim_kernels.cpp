// The sim's loop-nest templates: reductions, softmax, norms, products, convolutions, pooling.
// Each writes the straightforward loop nest a competent but naive engineer writes first; the
// refining moves (reorder, tile, simd, omp) and the pitfalls change it in named places.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/sim_codegen.h"

namespace evk::sim {
namespace {

int64_t prod(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>()); }

std::string minexpr(const std::string& a, const std::string& b) {
  return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
}

}  // namespace

// ---------------------------------------------------------------- reductions

namespace {

// What one reduction is over: its reduced dims, output shape and loop variables (kept dims
// k<d>, reduced dims r<d>), and, for the one-accumulator kinds, the C++ that starts, updates
// and ends the accumulator.
struct Reduction {
  std::string kind;
  std::vector<int> dims;  // sorted, distinct
  std::set<int> red;
  Shape out;
  int64_t R = 1;      // input elements per output element
  int64_t count = 1;  // a mean's divisor
  Idx xi, oi;
  bool arg = false, simple = false, inner_kept = false;

  Reduction(const Val& x, std::vector<int> d, bool keepdim, const std::string& k)
      : kind(k), dims(std::move(d)) {
    std::sort(dims.begin(), dims.end());
    dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
    red = std::set<int>(dims.begin(), dims.end());
    for (int i = 0; i < x.rank(); ++i) {
      if (red.count(i)) {
        R *= x.shape[i];
        if (keepdim) out.push_back(1);
      } else {
        out.push_back(x.shape[i]);
      }
    }
    count = R;
    arg = kind == "argmax" || kind == "argmin";
    simple = kind == "sum" || kind == "mean" || kind == "prod" || kind == "max" || kind == "min" ||
             kind == "norm";
    xi.resize(static_cast<size_t>(x.rank()));
    for (int i = 0; i < x.rank(); ++i) xi[i] = (red.count(i) ? "r" : "k") + std::to_string(i);
    for (int i = 0; i < x.rank(); ++i) {
      if (!red.count(i))
        oi.push_back(xi[i]);
      else if (keepdim)
        oi.push_back("0");
    }
    for (int i = dims.empty() ? x.rank() : dims[0]; i < x.rank(); ++i) inner_kept |= !red.count(i);
  }

  std::string init() const {
    return kind == "prod"  ? "1.f"
           : kind == "max" ? "(-INFINITY)"
           : kind == "min" ? "INFINITY"
                           : "0.f";
  }
  std::string clause() const {
    return kind == "prod"  ? "*:acc"
           : kind == "max" ? "max:acc"
           : kind == "min" ? "min:acc"
                           : "+:acc";
  }
  std::string update(const std::string& acc) const {
    if (kind == "sum" || kind == "mean") return acc + " += v;";
    if (kind == "norm") return acc + " += v * v;";
    if (kind == "prod") return acc + " *= v;";
    if (kind == "max") return acc + " = v > " + acc + " ? v : " + acc + ";";
    return acc + " = v < " + acc + " ? v : " + acc + ";";
  }
  std::string finalize(Gen& g, const std::string& acc) const {
    if (kind == "mean") return acc + " / " + flit(static_cast<double>(count));
    if (kind == "norm") {
      g.use_math();
      return "std::sqrt(" + acc + ")";
    }
    return acc;
  }
};

// The reorder move: accumulate into the output in the input's memory order, so that the inner
// loop runs over contiguous elements.
void reduce_reordered(Gen& g, const Val& x, const Reduction& r, const Val& dst,
                      const std::string& o) {
  if (!g.pit("reorder_no_init")) {
    g.open_for("i", prod(r.out), g.par_pragma());
    g.line(dst.ptr + "[i] = " + r.init() + ";");
    g.close();
  }
  bool par_ok = x.rank() > 0 && !r.red.count(0);
  for (int d = 0; d < x.rank(); ++d) {
    std::string pr = d == 0 && par_ok ? g.par_pragma() : "";
    if (d == x.rank() - 1 && !r.red.count(d) && g.move("simd"))
      pr = pr.empty() ? g.simd_pragma() : pr + " simd";
    if (pr.find("collapse") != std::string::npos && pr.find("simd") != std::string::npos)
      pr = "#pragma omp parallel for simd";
    g.open_for(r.xi[d], x.shape[d], pr);
  }
  g.line("const float v = " + g.elem(x, r.xi) + ";");
  g.line(r.update(o));
  g.close(x.rank());
  if (r.kind == "mean" || r.kind == "norm") {
    g.open_for("i", prod(r.out), g.par_pragma());
    g.line(dst.ptr + "[i] = " + r.finalize(g, dst.ptr + "[i]") + ";");
    g.close();
  }
}

// Opens the loops over the reduced dims, the innermost with `clause` (or, as a pitfall, the
// outermost parallel over a shared accumulator: a data race with more than one thread).
// Returns how many it opened.
int open_reduced(Gen& g, const Val& x, const Reduction& r, bool no_init,
                 const std::string& clause) {
  int n = 0;
  for (int d = 0; d < x.rank(); ++d) {
    if (!r.red.count(d)) continue;
    std::string pr;
    if (n == 0 && g.pit("parallel_reduction_race") &&
        (r.kind == "sum" || r.kind == "mean" || r.kind == "norm"))
      pr = "#pragma omp parallel for";
    else if (n == static_cast<int>(r.dims.size()) - 1 && !no_init)
      pr = g.simd_pragma(clause);
    g.open_for(r.xi[d], x.shape[d], pr);
    ++n;
  }
  return n;
}

// argmax / argmin: the flat index over the reduced dims of the first best element.
void arg_body(Gen& g, const Val& x, const Reduction& r, const std::string& o) {
  Idx ri;
  Shape rs;
  for (int d : r.dims) {
    ri.push_back(r.xi[d]);
    rs.push_back(x.shape[d]);
  }
  g.line(std::string("float best = ") + (r.kind == "argmax" ? "(-INFINITY)" : "INFINITY") + ";");
  g.line("int64_t best_i = 0;");
  int n = open_reduced(g, x, r, false, "");
  g.line("const float v = " + g.elem(x, r.xi) + ";");
  g.line(std::string("if (v ") + (r.kind == "argmax" ? ">" : "<") + " best) {");
  g.line("  best = v;");
  g.line("  best_i = " + Gen::flat(ri, rs) + ";");
  g.line("}");
  g.close(n);
  g.line(o + " = best_i;");
}

// logsumexp: the maximum first (unless the pitfall skips the shift), then the sum of exps.
void logsumexp_body(Gen& g, const Val& x, const Reduction& r, const std::string& o) {
  g.use_math();
  bool shift = !g.pit("softmax_no_max_shift");
  g.line("float m = " + std::string(shift ? "(-INFINITY)" : "0.f") + ";");
  if (shift) {
    int n = open_reduced(g, x, r, false, "");
    g.line("const float v = " + g.elem(x, r.xi) + ";");
    g.line("m = v > m ? v : m;");
    g.close(n);
  }
  g.line("float s = 0.f;");
  int n = open_reduced(g, x, r, false, "+:s");
  g.line("s += std::exp(" + g.elem(x, r.xi) + " - m);");
  g.close(n);
  g.line(o + " = m + std::log(s);");
}

// var / std: two passes, the mean and then the squared deviations.
void variance_body(Gen& g, const Val& x, const Reduction& r, const std::string& o,
                   double correction) {
  g.use_math();
  g.line("float mean = 0.f;");
  int n = open_reduced(g, x, r, false, "+:mean");
  g.line("mean += " + g.elem(x, r.xi) + ";");
  g.close(n);
  g.line("mean /= " + flit(static_cast<double>(r.R)) + ";");
  g.line("float ss = 0.f;");
  n = open_reduced(g, x, r, false, "+:ss");
  g.line("const float dv = " + g.elem(x, r.xi) + " - mean;");
  g.line("ss += dv * dv;");
  g.close(n);
  std::string var = "ss / " + flit(std::max(0.0, static_cast<double>(r.R) - correction));
  g.line(o + " = " + (r.kind == "std" ? "std::sqrt(" + var + ")" : var) + ";");
}

// Naive: one output element at a time, the reduction innermost.
void reduce_naive(Gen& g, const Val& x, const Reduction& r, const Val& dst, const std::string& o,
                  double correction) {
  int opened = 0;
  bool first = true;
  for (int d = 0; d < x.rank(); ++d) {
    if (r.red.count(d)) continue;
    g.open_for(r.xi[d], x.shape[d], first ? g.par_pragma() : "");
    first = false;
    ++opened;
  }
  if (r.simple) {
    bool no_init = g.pit("no_init_reduction") && g.dest_is_out(dst);
    std::string acc = no_init ? o : "acc";
    if (!no_init) g.line("float acc = " + r.init() + ";");
    int n = open_reduced(g, x, r, no_init, r.clause());
    g.line("const float v = " + g.elem(x, r.xi) + ";");
    g.line(r.update(acc));
    g.close(n);
    if (no_init) {
      if (r.kind == "mean" || r.kind == "norm") g.line(o + " = " + r.finalize(g, o) + ";");
    } else {
      g.line(o + " = " + r.finalize(g, "acc") + ";");
    }
  } else if (r.arg) {
    arg_body(g, x, r, o);
  } else if (r.kind == "logsumexp") {
    logsumexp_body(g, x, r, o);
  } else {
    variance_body(g, x, r, o, correction);
  }
  g.close(opened);
}

}  // namespace

Val Gen::reduce(const std::string& node, const Val& x0, std::vector<int> dims, bool keepdim,
                const std::string& kind, double correction) {
  Val x = x0;
  Reduction r(x, std::move(dims), keepdim, kind);
  feat_.has_reduction = true;
  if (!r.simple && !r.arg && kind != "logsumexp" && kind != "var" && kind != "std")
    throw Unsupported("reduction " + kind);
  if (kind == "logsumexp") feat_.has_softmax = true;
  if (x.kind == Val::kLazy && !r.simple && !r.arg) x = materialize(x, node + "_in");
  if (kind == "mean" && x.rank() > 0 && r.R != x.shape.back()) {
    feat_.has_mean = true;
    if (pit("mean_wrong_count")) r.count = x.shape.back();
  }
  if (r.simple && r.inner_kept) feat_.reorderable = true;
  Val dst = dest(node, r.out, r.arg ? "I64" : "F32");
  std::string o = dst.ptr + "[" + flat(r.oi, r.out) + "]";
  if (kind == "max" || kind == "min" || r.arg) use_math();
  if (r.simple && r.inner_kept && move("reorder"))
    reduce_reordered(*this, x, r, dst, o);
  else
    reduce_naive(*this, x, r, dst, o, correction);
  return dst;
}

// ---------------------------------------------------------------- row operations

Val Gen::softmax(const std::string& node, const Val& x0, int dim, bool log) {
  Val x = x0.kind == Val::kLazy ? materialize(x0, node + "_in") : x0;
  feat_.has_softmax = true;
  use_math();
  Val dst = dest(node, x.shape);
  Idx xi = row_index(x.rank(), dim);
  int opened = open_loops_except(xi, x.shape, dim);
  std::string v = elem(x, xi), o = dst.ptr + "[" + flat(xi, x.shape) + "]";
  int64_t R = x.shape[dim];
  bool shift = !pit("softmax_no_max_shift");
  line(std::string("float m = ") + (shift ? "(-INFINITY)" : "0.f") + ";");
  if (shift) {
    open_for("r", R, simd_pragma("max:m"));
    line("const float v = " + v + ";");
    line("m = v > m ? v : m;");
    close();
  }
  line("float s = 0.f;");
  open_for("r", R, simd_pragma("+:s"));
  line("const float e = std::exp(" + v + " - m);");
  if (!log) line(o + " = e;");
  line("s += e;");
  close();
  if (log) {
    line("const float ls = std::log(s);");
    open_for("r", R, simd_pragma());
    line(o + " = " + v + " - m - ls;");
    close();
  } else {
    line("const float inv = 1.f / s;");
    open_for("r", R, simd_pragma());
    line(o + " *= inv;");
    close();
  }
  close(opened);
  return dst;
}

Val Gen::row_norm(const std::string& node, const Val& x0, int ndims_row, const Val* w,
                  const Val* b, double eps) {
  Val x = x0.kind == Val::kLazy ? materialize(x0, node + "_in") : x0;
  use_math();
  if (ndims_row < 1 || ndims_row > x.rank()) throw Unsupported("normalized_shape rank");
  Val dst = dest(node, x.shape);
  int first_row = x.rank() - ndims_row;
  Idx xi(x.rank());
  int opened = 0;
  for (int d = 0; d < first_row; ++d) {
    xi[d] = "k" + std::to_string(d);
    open_for(xi[d], x.shape[d], opened == 0 ? par_pragma() : "");
    ++opened;
  }
  Idx ri;
  Shape rs;
  for (int d = first_row; d < x.rank(); ++d) {
    xi[d] = "r" + std::to_string(d);
    ri.push_back(xi[d]);
    rs.push_back(x.shape[d]);
  }
  auto row = [&](const std::string& clause) {
    for (size_t k = 0; k < ri.size(); ++k)
      open_for(ri[k], rs[k], k + 1 == ri.size() ? simd_pragma(clause) : "");
    return static_cast<int>(ri.size());
  };
  normalize_rows(x, dst, xi, prod(rs), eps, row, w ? elem(*w, ri) : "", b ? elem(*b, ri) : "");
  close(opened);
  return dst;
}

void Gen::normalize_rows(const Val& x, const Val& dst, const Idx& xi, int64_t count, double eps,
                         const std::function<int(const std::string&)>& row,
                         const std::string& scale, const std::string& shift) {
  const double R = static_cast<double>(count);
  line("float mean = 0.f;");
  int n = row("+:mean");
  line("mean += " + elem(x, xi) + ";");
  close(n);
  line("mean /= " + flit(R) + ";");
  line("float var = 0.f;");
  n = row("+:var");
  line("const float dv = " + elem(x, xi) + " - mean;");
  line("var += dv * dv;");
  close(n);
  line("const float rstd = 1.f / std::sqrt(var / " + flit(R) + " + " + flit(eps) + ");");
  n = row("");
  std::string e = "(" + elem(x, xi) + " - mean) * rstd";
  if (!scale.empty()) e += " * " + scale;
  if (!shift.empty()) e += " + " + shift;
  line(dst.ptr + "[" + flat(xi, x.shape) + "] = " + e + ";");
  close(n);
}

Val Gen::group_norm(const std::string& node, const Val& x0, int64_t groups, const Val* w,
                    const Val* b, double eps) {
  Val x = x0.kind == Val::kLazy ? materialize(x0, node + "_in") : x0;
  use_math();
  if (x.rank() < 2 || groups <= 0 || x.shape[1] % groups) throw Unsupported("group_norm shape");
  int64_t C = x.shape[1], CG = C / groups;
  Val dst = dest(node, x.shape);
  open_for("n", x.shape[0], par_pragma());
  open_for("g", groups);
  Idx xi = {"n", "c"};
  Shape rs = {CG};
  for (int d = 2; d < x.rank(); ++d) {
    xi.push_back("s" + std::to_string(d));
    rs.push_back(x.shape[d]);
  }
  auto row = [&](const std::string& clause) {
    open_for("cc", CG);
    line("const int64_t c = g * " + std::to_string(CG) + " + cc;");
    for (int d = 2; d < x.rank(); ++d)
      open_for(xi[d], x.shape[d], d + 1 == x.rank() ? simd_pragma(clause) : "");
    return x.rank() - 1;
  };
  normalize_rows(x, dst, xi, prod(rs), eps, row, w ? elem(*w, {"c"}) : "",
                 b ? elem(*b, {"c"}) : "");
  close(2);
  return dst;
}

Val Gen::l2_normalize(const std::string& node, const Val& x0, int dim, double p, double eps) {
  if (p != 2.0 && p != 1.0) throw Unsupported("normalize order");
  Val x = x0.kind == Val::kLazy ? materialize(x0, node + "_in") : x0;
  use_math();
  Val dst = dest(node, x.shape);
  Idx xi = row_index(x.rank(), dim);
  int opened = open_loops_except(xi, x.shape, dim);
  line("float s = 0.f;");
  open_for("r", x.shape[dim], simd_pragma("+:s"));
  line("const float v = " + elem(x, xi) + ";");
  line(p == 2.0 ? "s += v * v;" : "s += std::fabs(v);");
  close();
  line(std::string("float nrm = ") + (p == 2.0 ? "std::sqrt(s)" : "s") + ";");
  line("nrm = nrm > " + flit(eps) + " ? nrm : " + flit(eps) + ";");
  open_for("r", x.shape[dim], simd_pragma());
  line(dst.ptr + "[" + flat(xi, x.shape) + "] = " + elem(x, xi) + " / nrm;");
  close();
  close(opened);
  return dst;
}

Val Gen::cumulative(const std::string& node, const Val& x, int dim, bool is_prod) {
  Val dst = dest(node, x.shape);
  Idx xi = row_index(x.rank(), dim);
  int opened = open_loops_except(xi, x.shape, dim);
  line(std::string("float acc = ") + (is_prod ? "1.f" : "0.f") + ";");
  open_for("r", x.shape[dim]);
  line(std::string("acc ") + (is_prod ? "*=" : "+=") + " " + elem(x, xi) + ";");
  line(dst.ptr + "[" + flat(xi, x.shape) + "] = acc;");
  close();
  close(opened);
  return dst;
}

Val Gen::cosine_similarity(const std::string& node, const Val& a, const Val& b, int dim,
                           double eps) {
  if (a.shape != b.shape) throw Unsupported("cosine_similarity broadcasting");
  use_math();
  Shape out;
  Idx xi(a.rank()), oi;
  for (int d = 0; d < a.rank(); ++d) {
    xi[d] = d == dim ? "r" : "k" + std::to_string(d);
    if (d != dim) {
      out.push_back(a.shape[d]);
      oi.push_back(xi[d]);
    }
  }
  feat_.has_reduction = true;
  Val dst = dest(node, out);
  int opened = open_loops_except(xi, a.shape, dim);
  line("float dot = 0.f, na = 0.f, nb = 0.f;");
  open_for("r", a.shape[dim], simd_pragma("+:dot,na,nb"));
  line("const float u = " + elem(a, xi) + ";");
  line("const float v = " + elem(b, xi) + ";");
  line("dot += u * v;");
  line("na += u * u;");
  line("nb += v * v;");
  close();
  line("const float den = na * nb > " + flit(eps * eps) + " ? na * nb : " + flit(eps * eps) + ";");
  line(dst.ptr + "[" + flat(oi, out) + "] = dot / std::sqrt(den);");
  close(opened);
  return dst;
}

Val Gen::cross_entropy(const std::string& node, const Val& logits0, const Val& target,
                       const std::string& reduction) {
  if (logits0.rank() != 2 || target.rank() != 1 || target.kind != Val::kBuf || target.dt == "F32")
    throw Unsupported("cross_entropy form");
  Val logits = logits0.kind == Val::kLazy ? materialize(logits0, node + "_in") : logits0;
  feat_.has_softmax = true;
  use_math();
  int64_t N = logits.shape[0], C = logits.shape[1];
  bool none = reduction == "none";
  if (!none && reduction != "mean" && reduction != "sum") throw Unsupported("reduction " + reduction);
  Val dst = dest(node, none ? Shape{N} : Shape{});
  bool shift = !pit("softmax_no_max_shift");
  if (!none) line("float total = 0.f;");
  open_for("n", N, none ? par_pragma() : "");
  line(std::string("float m = ") + (shift ? "(-INFINITY)" : "0.f") + ";");
  if (shift) {
    open_for("c", C, simd_pragma("max:m"));
    line("const float v = " + elem(logits, {"n", "c"}) + ";");
    line("m = v > m ? v : m;");
    close();
  }
  line("float s = 0.f;");
  open_for("c", C, simd_pragma("+:s"));
  line("s += std::exp(" + elem(logits, {"n", "c"}) + " - m);");
  close();
  line("const int64_t cls = static_cast<int64_t>(" + elem_raw(target, {"n"}) + ");");
  line("const float loss = std::log(s) + m - " + elem(logits, {"n", "cls"}) + ";");
  line(none ? dst.ptr + "[n] = loss;" : "total += loss;");
  close();
  if (!none) line(dst.ptr + "[0] = total" + (reduction == "mean" ? " / " + flit(static_cast<double>(N)) : "") + ";");
  return dst;
}

// ---------------------------------------------------------------- products

namespace {

// A (batched) product's sizes: [batch..., M, K] x [batch..., K, N], the batch dims broadcast.
struct MatmulDims {
  int64_t M = 0, K = 0, N = 0;
  Shape batch, full;  // full: batch + [M, N]
  Shape ds;           // the destination's shape (out_shape, or full without one)
};

MatmulDims matmul_dims(const Val& a, const Val& b, const Val* bias, const Shape& out_shape) {
  if (a.rank() < 2 || b.rank() < 2) throw Unsupported("matmul ranks");
  MatmulDims m;
  m.M = a.shape[a.rank() - 2];
  m.K = a.shape.back();
  m.N = b.shape.back();
  if (b.shape[b.rank() - 2] != m.K) throw Unsupported("matmul inner dims differ");
  Shape ab(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  size_t r = std::max(ab.size(), bb.size());
  for (size_t d = 0; d < r; ++d) {
    int64_t x = d + ab.size() >= r ? ab[d + ab.size() - r] : 1;
    int64_t y = d + bb.size() >= r ? bb[d + bb.size() - r] : 1;
    if (x != y && x != 1 && y != 1) throw Unsupported("matmul batch dims");
    m.batch.push_back(std::max(x, y));
  }
  m.full = m.batch;
  m.full.push_back(m.M);
  m.full.push_back(m.N);
  m.ds = out_shape.empty() && prod(m.full) != 1 ? m.full : out_shape;
  if (prod(m.ds) != prod(m.full)) throw Unsupported("matmul output shape");
  if (bias && (bias->rank() != 1 || bias->shape[0] != m.N)) throw Unsupported("bias shape");
  return m;
}

// The C++ of A[i, k], B[k, j] (or B[j, k] as a pitfall) and the output element O[i, j], under
// the batch loop variables b0...
struct MatmulTerms {
  Gen& g;
  const Val &a, &b, &dst;
  const MatmulDims& m;
  Idx bi;

  Idx sub(const Val& v, const std::string& r, const std::string& c) const {
    Idx ix;
    size_t vb = v.shape.size() - 2;
    for (size_t d = 0; d < vb; ++d)
      ix.push_back(v.shape[d] == 1 ? "0" : bi[d + m.batch.size() - vb]);
    ix.push_back(r);
    ix.push_back(c);
    return ix;
  }
  std::string A(const std::string& i, const std::string& k) const {
    return g.elem(a, sub(a, i, k));
  }
  std::string B(const std::string& k, const std::string& j) const {
    return g.pit("transposed_weight") ? g.elem(b, sub(b, j, k)) : g.elem(b, sub(b, k, j));
  }
  std::string O(const std::string& i, const std::string& j) const {
    Idx ix = bi;
    ix.push_back(i);
    ix.push_back(j);
    return dst.ptr + "[" + Gen::flat(ix, m.full) + "]";
  }
};

// The tile move: blocks of T over i, k and j (the last partial block skipped as a pitfall),
// the output zeroed (or set to the bias) first.
void matmul_tiled(Gen& g, const MatmulTerms& t, const std::string& init) {
  const MatmulDims& m = t.m;
  int64_t T = g.plan().move_param("tile") > 0 ? g.plan().move_param("tile") : 64;
  bool tail_bug = g.pit("tile_tail");
  if (m.M % T || m.N % T || m.K % T) g.feat().tile_tail_bites = true;
  if (!g.pit("reorder_no_init")) {
    g.open_for("i", m.M, m.batch.empty() ? g.par_pragma() : "");
    g.open_for("j", m.N, g.simd_pragma());
    g.line(t.O("i", "j") + " = " + init + ";");
    g.close(2);
  }
  auto block = [&](const std::string& v, int64_t n, const std::string& pragma) {
    std::string T_s = std::to_string(T), n_s = std::to_string(n);
    if (!pragma.empty()) g.line(pragma);
    if (tail_bug)  // the last partial block is never visited
      g.open_block("for (int64_t " + v + "0 = 0; " + v + "0 + " + T_s + " <= " + n_s + "; " + v +
                   "0 += " + T_s + ") {");
    else
      g.open_block("for (int64_t " + v + "0 = 0; " + v + "0 < " + n_s + "; " + v + "0 += " + T_s +
                   ") {");
    g.line("const int64_t " + v + "1 = " + minexpr(v + "0 + " + T_s, n_s) + ";");
  };
  block("i", m.M, m.batch.empty() ? g.par_pragma() : "");
  block("k", m.K, "");
  block("j", m.N, "");
  g.open_for_range("i", "i0", "i1");
  g.open_for_range("k", "k0", "k1");
  g.line("const float av = " + t.A("i", "k") + ";");
  g.open_for_range("j", "j0", "j1", g.simd_pragma());
  g.line(t.O("i", "j") + " += av * " + t.B("k", "j") + ";");
  g.close(6);
}

// The reorder move: i, k, j, so that the inner loop runs over a row of B and of the output.
void matmul_reordered(Gen& g, const MatmulTerms& t, const std::string& init) {
  const MatmulDims& m = t.m;
  g.open_for("i", m.M, m.batch.empty() ? g.par_pragma() : "");
  if (!g.pit("reorder_no_init")) {
    g.open_for("j", m.N, g.simd_pragma());
    g.line(t.O("i", "j") + " = " + init + ";");
    g.close();
  }
  g.open_for("k", m.K);
  g.line("const float av = " + t.A("i", "k") + ";");
  g.open_for("j", m.N, g.simd_pragma());
  g.line(t.O("i", "j") + " += av * " + t.B("k", "j") + ";");
  g.close(3);
}

// Naive: i, j, then a dot product over k.
void matmul_naive(Gen& g, const MatmulTerms& t, const std::string& init, bool has_bias) {
  const MatmulDims& m = t.m;
  bool no_init = g.pit("no_init_reduction") && g.dest_is_out(t.dst);
  g.open_for("i", m.M, m.batch.empty() ? g.par_pragma() : "");
  g.open_for("j", m.N);
  if (no_init) {
    g.open_for("k", m.K);
    g.line(t.O("i", "j") + " += " + t.A("i", "k") + " * " + t.B("k", "j") + ";");
    g.close();
    if (has_bias) g.line(t.O("i", "j") + " += " + init + ";");
  } else {
    g.line("float acc = " + init + ";");
    g.open_for("k", m.K, g.simd_pragma("+:acc"));
    g.line("acc += " + t.A("i", "k") + " * " + t.B("k", "j") + ";");
    g.close();
    g.line(t.O("i", "j") + " = acc;");
  }
  g.close(2);
}

}  // namespace

Val Gen::matmul(const std::string& node, Val a, Val b, const Val* bias, const Shape& out_shape) {
  if (a.rank() == 1) a = view(a, {1, a.shape[0]}, {{1, 1, 0}});
  if (b.rank() == 1) b = view(b, {b.shape[0], 1}, {{0, 1, 0}});
  const MatmulDims m = matmul_dims(a, b, bias, out_shape);
  feat_.has_product = true;
  feat_.reorderable = true;
  if (m.M >= 64 && m.N >= 64 && m.K >= 64) feat_.tileable = true;
  feat_.matmul_dims.insert(feat_.matmul_dims.end(), {m.M, m.N, m.K});
  if (a.kind == Val::kLazy) a = materialize(a, node + "_a");
  if (b.kind == Val::kLazy) b = materialize(b, node + "_b");

  bool tile = move("tile"), reorder = move("reorder") || tile;
  if (reorder && !(b.kind == Val::kBuf && b.strides.back() == 1 && b.shape.back() > 1) && m.N > 1)
    b = materialize(b, node + "_packed");  // B packed row-major so the inner loop runs over j
  Val dst = dest(node, m.ds);
  MatmulTerms t{*this, a, b, dst, m, {}};
  for (size_t d = 0; d < m.batch.size(); ++d) t.bi.push_back("b" + std::to_string(d));
  std::string init = bias ? elem(*bias, {"j"}) : std::string("0.f");
  int opened = 0;
  for (size_t d = 0; d < m.batch.size(); ++d, ++opened)
    open_for(t.bi[d], m.batch[d], d == 0 ? par_pragma() : "");
  if (tile)
    matmul_tiled(*this, t, init);
  else if (reorder)
    matmul_reordered(*this, t, init);
  else
    matmul_naive(*this, t, init, bias != nullptr);
  close(opened);
  return dst;
}

// ---------------------------------------------------------------- convolution

namespace {

// One convolution's loop nest: its sizes, index variables (output n, oc, o<d>; input n,
// ic/icg, i<d>; weight k<d>) and the C++ of a weight and a bias element.
struct ConvNest {
  int nd = 0;
  Val x, dst;
  Shape out_shape, kernel;  // kernel: the weight's spatial sizes
  std::vector<int64_t> st, pd, dl;
  int64_t groups = 1, N = 0, OC = 0, ICg = 0, OCg = 0;
  bool transposed = false, check = true, has_bias = false;
  Idx oi, ii;
  std::string wexpr, bexpr;

  // g = oc's group (and ocg, its place in it, for a transposed convolution).
  void group_vars(Gen& g) const {
    if (groups > 1) {
      g.line("const int64_t g = oc / " + std::to_string(OCg) + ";");
      if (transposed) g.line("const int64_t ocg = oc % " + std::to_string(OCg) + ";");
    }
  }
  void ic_var(Gen& g) const {
    if (groups > 1) g.line("const int64_t ic = g * " + std::to_string(ICg) + " + icg;");
  }
};

// The weight element for the loop variables; [ICg, OC, K...] instead of [OC, ICg, K...] as a
// pitfall (not for a transposed convolution, whose weight is [IC, OCg, K...]).
std::string conv_weight(Gen& g, const Val& wc, const Idx& wi, int64_t ICg, int64_t OC,
                        bool transposed) {
  if (!(g.pit("transposed_weight") && !transposed)) return g.elem(wc, wi);
  Val ws = wc;
  ws.shape[0] = ICg;
  ws.shape[1] = OC;
  ws.strides = contiguous_strides(ws.shape);
  Idx sw = wi;
  std::swap(sw[0], sw[1]);
  return g.elem(ws, sw);
}

// The reorder move: per (n, oc) output plane, accumulate weight * shifted input rows; the
// innermost loop runs over contiguous output and input elements, within the bounds the
// padding leaves.
void conv_reordered(Gen& g, const ConvNest& c) {
  const int nd = c.nd;
  Idx ii = c.ii;
  int64_t plane = 1;
  for (int d = 0; d < nd; ++d) plane *= c.out_shape[2 + d];
  g.open_for("n", c.N, g.par_pragma());
  g.open_for("oc", c.OC);
  c.group_vars(g);
  g.line("float* op = " + c.dst.ptr + " + (n * " + std::to_string(c.OC) + " + oc) * " +
         std::to_string(plane) + ";");
  if (!g.pit("reorder_no_init")) {
    g.open_for("s", plane, g.simd_pragma());
    g.line("op[s] = " + c.bexpr + ";");
    g.close();
  }
  g.open_for("icg", c.ICg);
  c.ic_var(g);
  for (int d = 0; d < nd; ++d) g.open_for("k" + std::to_string(d), c.kernel[d]);
  g.line("const float wv = " + c.wexpr + ";");
  for (int d = 0; d < nd - 1; ++d) {
    std::string o = "o" + std::to_string(d), i = "i" + std::to_string(d);
    g.open_for(o, c.out_shape[2 + d]);
    g.line("const int64_t " + i + " = " + o + " * " + std::to_string(c.st[d]) + " - " +
           std::to_string(c.pd[d]) + " + k" + std::to_string(d) + " * " + std::to_string(c.dl[d]) +
           ";");
    if (c.check && c.pd[d] > 0)
      g.line("if (" + i + " < 0 || " + i + " >= " + std::to_string(c.x.shape[2 + d]) +
             ") continue;");
  }
  int L = nd - 1;
  std::string kL = "k" + std::to_string(L), S = std::to_string(c.st[L]);
  int64_t IL = c.x.shape[2 + L], OL = c.out_shape[2 + L];
  g.line("const int64_t sh = " + std::to_string(c.pd[L]) + " - " + kL + " * " +
         std::to_string(c.dl[L]) + ";");
  if (c.check) {
    g.line("const int64_t lo = sh > 0 ? (sh + " + S + " - 1) / " + S + " : 0;");
    g.line("int64_t hi = (" + std::to_string(IL) + " + sh + " + S + " - 1) / " + S + ";");
    g.line("hi = hi < " + std::to_string(OL) + " ? hi : " + std::to_string(OL) + ";");
  } else {
    g.line("const int64_t lo = 0, hi = " + std::to_string(OL) + ";");
  }
  std::string oL = "o" + std::to_string(L);
  ii[2 + L] = "(" + oL + " * " + S + " - sh)";
  g.open_for_range(oL, "lo", "hi", g.simd_pragma());
  Idx po;
  Shape ps;
  for (int d = 0; d < nd; ++d) {
    po.push_back("o" + std::to_string(d));
    ps.push_back(c.out_shape[2 + d]);
  }
  g.line("op[" + Gen::flat(po, ps) + "] += wv * " + g.elem(c.x, ii) + ";");
  g.close(1 + (nd - 1) + nd + 1 + 2);
}

// The input position i<d> that kernel tap k<d> of output o<d> reads, skipping taps that fall
// outside the input (a transposed convolution: only those the stride lands on).
void conv_input_index(Gen& g, const ConvNest& c, int d) {
  std::string k = "k" + std::to_string(d), i = "i" + std::to_string(d),
              od = "o" + std::to_string(d);
  std::string I = std::to_string(c.x.shape[2 + d]);
  g.open_for(k, c.kernel[d]);
  if (c.transposed) {
    g.line("const int64_t t" + std::to_string(d) + " = " + od + " + " + std::to_string(c.pd[d]) +
           " - " + k + " * " + std::to_string(c.dl[d]) + ";");
    std::string td = "t" + std::to_string(d);
    g.line("if (" + td + " < 0 || " + td + " % " + std::to_string(c.st[d]) + " != 0) continue;");
    g.line("const int64_t " + i + " = " + td + " / " + std::to_string(c.st[d]) + ";");
    g.line("if (" + i + " >= " + I + ") continue;");
  } else {
    g.line("const int64_t " + i + " = " + od + " * " + std::to_string(c.st[d]) + " - " +
           std::to_string(c.pd[d]) + " + " + k + " * " + std::to_string(c.dl[d]) + ";");
    if (c.check && c.pd[d] > 0) g.line("if (" + i + " < 0 || " + i + " >= " + I + ") continue;");
  }
}

// Naive: one output element at a time.
void conv_naive(Gen& g, const ConvNest& c) {
  const int nd = c.nd;
  g.open_for("n", c.N, g.par_pragma());
  g.open_for("oc", c.OC);
  c.group_vars(g);
  for (int d = 0; d < nd; ++d) g.open_for("o" + std::to_string(d), c.out_shape[2 + d]);
  bool no_init = g.pit("no_init_reduction") && g.dest_is_out(c.dst) && !c.transposed;
  std::string o = c.dst.ptr + "[" + Gen::flat(c.oi, c.out_shape) + "]";
  std::string acc = no_init ? o : "acc";
  if (!no_init) g.line("float acc = " + c.bexpr + ";");
  g.open_for("icg", c.ICg);
  c.ic_var(g);
  for (int d = 0; d < nd; ++d) conv_input_index(g, c, d);
  g.line(acc + " += " + g.elem(c.x, c.ii) + " * " + c.wexpr + ";");
  g.close(nd + 1);
  if (no_init) {
    if (c.has_bias) g.line(o + " += " + c.bexpr + ";");
  } else {
    g.line(o + " = acc;");
  }
  g.close(nd + 2);
}

}  // namespace

Val Gen::conv(const std::string& node, const Val& x0, const Val& w, const Val* b,
              std::vector<int64_t> st, std::vector<int64_t> pd, std::vector<int64_t> dl,
              int64_t groups, bool transposed, const Shape& out_shape) {
  int nd = w.rank() - 2;
  if (nd < 1 || nd > 3 || x0.rank() != nd + 2) throw Unsupported("conv ranks (unbatched input?)");
  if (out_shape.size() != x0.shape.size()) throw Unsupported("conv without an output shape");
  if (st.size() != static_cast<size_t>(nd) || pd.size() != st.size() || dl.size() != st.size())
    throw Unsupported("conv arguments");
  ConvNest c;
  c.nd = nd;
  c.x = as_contiguous(x0, node + "_in");
  Val wc = as_contiguous(w, node + "_w");
  feat_.has_product = true;
  c.N = c.x.shape[0];
  c.OC = out_shape[1];
  c.groups = groups;
  c.ICg = c.x.shape[1] / groups;
  c.OCg = c.OC / groups;
  bool padded = false;
  for (int64_t p : pd) padded |= p > 0;
  if (padded) feat_.has_padding = true;
  if (!transposed) feat_.reorderable = true;
  c.check = !pit("padding_ignored");
  c.dst = dest(node, out_shape);
  c.out_shape = out_shape;
  c.kernel.assign(w.shape.begin() + 2, w.shape.end());
  c.st = std::move(st);
  c.pd = std::move(pd);
  c.dl = std::move(dl);
  c.transposed = transposed;
  c.oi = {"n", "oc"};
  c.ii = {"n", groups > 1 ? "ic" : "icg"};
  Idx wi = transposed ? Idx{groups > 1 ? "ic" : "icg", groups > 1 ? "ocg" : "oc"} : Idx{"oc", "icg"};
  for (int d = 0; d < nd; ++d) {
    c.oi.push_back("o" + std::to_string(d));
    c.ii.push_back("i" + std::to_string(d));
    wi.push_back("k" + std::to_string(d));
  }
  c.wexpr = conv_weight(*this, wc, wi, c.ICg, c.OC, transposed);
  c.bexpr = b ? elem(*b, {"oc"}) : "0.f";
  c.has_bias = b != nullptr;
  if (!transposed && move("reorder"))
    conv_reordered(*this, c);
  else
    conv_naive(*this, c);
  return c.dst;
}

// ---------------------------------------------------------------- pooling

Idx Gen::pool_lead_loops(const Val& x, int lead) {
  Idx oi;
  for (int d = 0; d < lead; ++d) {
    oi.push_back("b" + std::to_string(d));
    open_for(oi.back(), x.shape[d], d == 0 ? par_pragma() : "");
  }
  return oi;
}

Val Gen::pool(const std::string& node, const Val& x0, int nd, bool is_max, std::vector<int64_t> k,
              std::vector<int64_t> st, std::vector<int64_t> pd, std::vector<int64_t> dl,
              bool count_include_pad, const Shape& out_shape) {
  if (x0.rank() < nd + 1 || out_shape.size() != x0.shape.size()) throw Unsupported("pool shapes");
  if (k.size() != static_cast<size_t>(nd) || st.size() != k.size() || pd.size() != k.size())
    throw Unsupported("pool arguments");
  Val x = x0.kind == Val::kLazy ? materialize(x0, node + "_in") : x0;
  int lead = x.rank() - nd;
  bool padded = false;
  for (int64_t p : pd) padded |= p > 0;
  if (padded) feat_.has_padding = true;
  if (is_max) use_math();
  Val dst = dest(node, out_shape);
  Idx oi = pool_lead_loops(x, lead), xi = oi;
  for (int d = 0; d < nd; ++d) {
    oi.push_back("o" + std::to_string(d));
    xi.push_back("i" + std::to_string(d));
    open_for(oi.back(), out_shape[lead + d]);
  }
  std::string o = dst.ptr + "[" + flat(oi, out_shape) + "]";
  if (is_max) {
    bool check = !pit("padding_ignored");
    line("float m = (-INFINITY);");
    for (int d = 0; d < nd; ++d) {
      std::string kk = "k" + std::to_string(d), i = xi[lead + d];
      open_for(kk, k[d]);
      line("const int64_t " + i + " = " + oi[lead + d] + " * " + std::to_string(st[d]) + " - " +
           std::to_string(pd[d]) + " + " + kk + " * " + std::to_string(dl[d]) + ";");
      if (check || pd[d] == 0)
        line("if (" + i + " < 0 || " + i + " >= " + std::to_string(x.shape[lead + d]) + ") continue;");
    }
    line("const float v = " + elem(x, xi) + ";");
    line("m = v > m ? v : m;");
    close(nd);
    line(o + " = m;");
  } else {
    std::string cnt = "1", valid = "1";
    for (int d = 0; d < nd; ++d) {
      std::string s = std::to_string(d), I = std::to_string(x.shape[lead + d]);
      std::string lo = "lo" + s, hi = "hi" + s;
      line("int64_t " + lo + " = " + oi[lead + d] + " * " + std::to_string(st[d]) + " - " + std::to_string(pd[d]) + ";");
      line("int64_t " + hi + " = " + minexpr(lo + " + " + std::to_string(k[d]), I + " + " + std::to_string(pd[d])) + ";");
      line("const int64_t n" + s + " = " + hi + " - " + lo + ";");
      line(lo + " = " + lo + " > 0 ? " + lo + " : 0;");
      line(hi + " = " + minexpr(hi, I) + ";");
      cnt += " * n" + s;
      valid += " * (" + hi + " - " + lo + ")";
    }
    line("float s = 0.f;");
    for (int d = 0; d < nd; ++d) open_for_range(xi[lead + d], "lo" + std::to_string(d), "hi" + std::to_string(d));
    line("s += " + elem(x, xi) + ";");
    close(nd);
    line(o + " = s / static_cast<float>(" + (count_include_pad ? cnt : valid) + ");");
  }
  close(nd + lead);
  return dst;
}

Val Gen::adaptive_pool(const std::string& node, const Val& x0, int nd, bool is_max,
                       const Shape& out_shape) {
  if (x0.rank() < nd + 1 || out_shape.size() != x0.shape.size()) throw Unsupported("adaptive pool shapes");
  Val x = x0.kind == Val::kLazy ? materialize(x0, node + "_in") : x0;
  int lead = x.rank() - nd;
  if (is_max) use_math();
  Val dst = dest(node, out_shape);
  Idx oi = pool_lead_loops(x, lead), xi = oi;
  std::string cnt = "1";
  for (int d = 0; d < nd; ++d) {
    std::string s = std::to_string(d), I = std::to_string(x.shape[lead + d]),
                O = std::to_string(out_shape[lead + d]);
    oi.push_back("o" + s);
    xi.push_back("i" + s);
    open_for(oi.back(), out_shape[lead + d]);
    line("const int64_t lo" + s + " = (o" + s + " * " + I + ") / " + O + ";");
    line("const int64_t hi" + s + " = ((o" + s + " + 1) * " + I + " + " + O + " - 1) / " + O + ";");
    cnt += " * (hi" + s + " - lo" + s + ")";
  }
  line(std::string("float s = ") + (is_max ? "(-INFINITY)" : "0.f") + ";");
  for (int d = 0; d < nd; ++d) open_for_range(xi[lead + d], "lo" + std::to_string(d), "hi" + std::to_string(d));
  line("const float v = " + elem(x, xi) + ";");
  line(is_max ? "s = v > s ? v : s;" : "s += v;");
  close(nd);
  line(dst.ptr + "[" + flat(oi, out_shape) + "] = " + (is_max ? "s" : "s / static_cast<float>(" + cnt + ")") + ";");
  close(nd + lead);
  return dst;
}

}  // namespace evk::sim
