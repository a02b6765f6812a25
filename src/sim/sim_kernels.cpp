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

Val Gen::reduce(const std::string& node, const Val& x0, std::vector<int> dims, bool keepdim,
                const std::string& kind, double correction) {
  Val x = x0;
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  std::set<int> red(dims.begin(), dims.end());
  Shape out;
  int64_t R = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (red.count(d)) {
      R *= x.shape[d];
      if (keepdim) out.push_back(1);
    } else {
      out.push_back(x.shape[d]);
    }
  }
  feat_.has_reduction = true;
  bool arg = kind == "argmax" || kind == "argmin";
  bool simple = kind == "sum" || kind == "mean" || kind == "prod" || kind == "max" ||
                kind == "min" || kind == "norm";
  if (!simple && !arg && kind != "logsumexp" && kind != "var" && kind != "std")
    throw Unsupported("reduction " + kind);
  if (kind == "logsumexp") feat_.has_softmax = true;
  if (x.kind == Val::kLazy && !simple && !arg) x = materialize(x, node + "_in");
  int64_t count = R;
  if (kind == "mean" && x.rank() > 0 && R != x.shape.back()) {
    feat_.has_mean = true;
    if (pit("mean_wrong_count")) count = x.shape.back();
  }
  // Loop variables: kept dims k<d>, reduced dims r<d>.
  Idx xi(x.rank());
  for (int d = 0; d < x.rank(); ++d) xi[d] = (red.count(d) ? "r" : "k") + std::to_string(d);
  Idx oi;
  for (int d = 0; d < x.rank(); ++d) {
    if (!red.count(d)) oi.push_back(xi[d]);
    else if (keepdim) oi.push_back("0");
  }
  bool inner_kept = false;
  for (int d = dims.empty() ? x.rank() : dims[0]; d < x.rank(); ++d) inner_kept |= !red.count(d);
  if (simple && inner_kept) feat_.reorderable = true;

  Val dst = dest(node, out, arg ? "I64" : "F32");
  std::string o = dst.ptr + "[" + flat(oi, out) + "]";
  std::string init = kind == "prod" ? "1.f" : kind == "max" ? "(-INFINITY)" : kind == "min" ? "INFINITY" : "0.f";
  if (kind == "max" || kind == "min" || arg) use_math();
  auto update = [&](const std::string& acc) {
    if (kind == "sum" || kind == "mean") return acc + " += v;";
    if (kind == "norm") return acc + " += v * v;";
    if (kind == "prod") return acc + " *= v;";
    if (kind == "max") return acc + " = v > " + acc + " ? v : " + acc + ";";
    return acc + " = v < " + acc + " ? v : " + acc + ";";
  };
  auto finalize = [&](const std::string& acc) {
    if (kind == "mean") return acc + " / " + flit(static_cast<double>(count));
    if (kind == "norm") {
      use_math();
      return "std::sqrt(" + acc + ")";
    }
    return acc;
  };
  std::string red_clause = kind == "prod" ? "*:acc" : kind == "max" ? "max:acc" : kind == "min" ? "min:acc" : "+:acc";

  if (simple && inner_kept && move("reorder")) {
    // Accumulate into the output in the input's memory order: the inner loop runs contiguous.
    if (!pit("reorder_no_init")) {
      open_for("i", prod(out), par_pragma());
      line(dst.ptr + "[i] = " + init + ";");
      close();
    }
    bool par_ok = x.rank() > 0 && !red.count(0);
    for (int d = 0; d < x.rank(); ++d) {
      std::string pr = d == 0 && par_ok ? par_pragma() : "";
      if (d == x.rank() - 1 && !red.count(d) && move("simd")) pr = pr.empty() ? simd_pragma() : pr + " simd";
      if (pr.find("collapse") != std::string::npos && pr.find("simd") != std::string::npos) pr = "#pragma omp parallel for simd";
      open_for(xi[d], x.shape[d], pr);
    }
    line("const float v = " + elem(x, xi) + ";");
    line(update(o));
    close(x.rank());
    if (kind == "mean" || kind == "norm") {
      open_for("i", prod(out), par_pragma());
      line(dst.ptr + "[i] = " + finalize(dst.ptr + "[i]") + ";");
      close();
    }
    return dst;
  }

  // Naive: one output element at a time, the reduction innermost.
  int opened = 0;
  bool first = true;
  for (int d = 0; d < x.rank(); ++d) {
    if (red.count(d)) continue;
    open_for(xi[d], x.shape[d], first ? par_pragma() : "");
    first = false;
    ++opened;
  }
  bool no_init = pit("no_init_reduction") && dest_is_out(dst) && simple;
  std::string acc = no_init ? o : "acc";
  auto open_reduced = [&](const std::string& clause) {
    int n = 0;
    for (int d = 0; d < x.rank(); ++d) {
      if (!red.count(d)) continue;
      std::string pr;
      if (n == 0 && pit("parallel_reduction_race") && (kind == "sum" || kind == "mean" || kind == "norm"))
        pr = "#pragma omp parallel for";  // shared accumulator: a data race with >1 thread
      else if (n == static_cast<int>(dims.size()) - 1 && !no_init)
        pr = simd_pragma(clause);
      open_for(xi[d], x.shape[d], pr);
      ++n;
    }
    return n;
  };
  std::string rflat;  // flat index over the reduced dims (arg reductions)
  {
    Idx ri;
    Shape rs;
    for (int d : dims) {
      ri.push_back(xi[d]);
      rs.push_back(x.shape[d]);
    }
    rflat = flat(ri, rs);
  }
  if (simple) {
    if (!no_init) line("float acc = " + init + ";");
    int n = open_reduced(red_clause);
    line("const float v = " + elem(x, xi) + ";");
    line(update(acc));
    close(n);
    if (no_init) {
      if (kind == "mean" || kind == "norm") line(o + " = " + finalize(o) + ";");
    } else {
      line(o + " = " + finalize("acc") + ";");
    }
  } else if (arg) {
    line(std::string("float best = ") + (kind == "argmax" ? "(-INFINITY)" : "INFINITY") + ";");
    line("int64_t best_i = 0;");
    int n = open_reduced("");
    line("const float v = " + elem(x, xi) + ";");
    line(std::string("if (v ") + (kind == "argmax" ? ">" : "<") + " best) {");
    line("  best = v;");
    line("  best_i = " + rflat + ";");
    line("}");
    close(n);
    line(o + " = best_i;");
  } else if (kind == "logsumexp") {
    use_math();
    bool shift = !pit("softmax_no_max_shift");
    line("float m = " + std::string(shift ? "(-INFINITY)" : "0.f") + ";");
    if (shift) {
      int n = open_reduced("");
      line("const float v = " + elem(x, xi) + ";");
      line("m = v > m ? v : m;");
      close(n);
    }
    line("float s = 0.f;");
    int n = open_reduced("+:s");
    line("s += std::exp(" + elem(x, xi) + " - m);");
    close(n);
    line(o + " = m + std::log(s);");
  } else {  // var / std: two passes
    use_math();
    line("float mean = 0.f;");
    int n = open_reduced("+:mean");
    line("mean += " + elem(x, xi) + ";");
    close(n);
    line("mean /= " + flit(static_cast<double>(R)) + ";");
    line("float ss = 0.f;");
    n = open_reduced("+:ss");
    line("const float dv = " + elem(x, xi) + " - mean;");
    line("ss += dv * dv;");
    close(n);
    std::string var = "ss / " + flit(std::max(0.0, static_cast<double>(R) - correction));
    line(o + " = " + (kind == "std" ? "std::sqrt(" + var + ")" : var) + ";");
  }
  close(opened);
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

Val Gen::matmul(const std::string& node, Val a, Val b, const Val* bias, const Shape& out_shape) {
  if (a.rank() == 1) a = view(a, {1, a.shape[0]}, {{1, 1, 0}});
  if (b.rank() == 1) b = view(b, {b.shape[0], 1}, {{0, 1, 0}});
  if (a.rank() < 2 || b.rank() < 2) throw Unsupported("matmul ranks");
  int64_t M = a.shape[a.rank() - 2], K = a.shape.back(), N = b.shape.back();
  if (b.shape[b.rank() - 2] != K) throw Unsupported("matmul inner dims differ");
  Shape ab(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  Shape batch;
  {
    size_t r = std::max(ab.size(), bb.size());
    for (size_t d = 0; d < r; ++d) {
      int64_t x = d + ab.size() >= r ? ab[d + ab.size() - r] : 1;
      int64_t y = d + bb.size() >= r ? bb[d + bb.size() - r] : 1;
      if (x != y && x != 1 && y != 1) throw Unsupported("matmul batch dims");
      batch.push_back(std::max(x, y));
    }
  }
  Shape full = batch;
  full.push_back(M);
  full.push_back(N);
  Shape ds = out_shape.empty() && prod(full) != 1 ? full : out_shape;
  if (prod(ds) != prod(full)) throw Unsupported("matmul output shape");
  if (bias && (bias->rank() != 1 || bias->shape[0] != N)) throw Unsupported("bias shape");
  feat_.has_product = true;
  feat_.reorderable = true;
  if (M >= 64 && N >= 64 && K >= 64) feat_.tileable = true;
  feat_.matmul_dims.insert(feat_.matmul_dims.end(), {M, N, K});
  if (a.kind == Val::kLazy) a = materialize(a, node + "_a");
  if (b.kind == Val::kLazy) b = materialize(b, node + "_b");

  bool tile = move("tile"), reorder = move("reorder") || tile;
  if (reorder && !(b.kind == Val::kBuf && b.strides.back() == 1 && b.shape.back() > 1) && N > 1)
    b = materialize(b, node + "_packed");  // B packed row-major so the inner loop runs over j
  Val dst = dest(node, ds);
  Idx bi;
  for (size_t d = 0; d < batch.size(); ++d) bi.push_back("b" + std::to_string(d));
  auto sub = [&](const Val& v, const std::string& r, const std::string& c) {
    Idx ix;
    size_t vb = v.shape.size() - 2;
    for (size_t d = 0; d < vb; ++d) ix.push_back(v.shape[d] == 1 ? "0" : bi[d + batch.size() - vb]);
    ix.push_back(r);
    ix.push_back(c);
    return ix;
  };
  auto A = [&](const std::string& i, const std::string& k) { return elem(a, sub(a, i, k)); };
  auto B = [&](const std::string& k, const std::string& j) {
    return pit("transposed_weight") ? elem(b, sub(b, j, k)) : elem(b, sub(b, k, j));
  };
  auto O = [&](const std::string& i, const std::string& j) {
    Idx ix = bi;
    ix.push_back(i);
    ix.push_back(j);
    return dst.ptr + "[" + flat(ix, full) + "]";
  };
  std::string init = [&](const std::string& j) { return bias ? elem(*bias, {j}) : std::string("0.f"); }("j");
  int opened = 0;
  for (size_t d = 0; d < batch.size(); ++d, ++opened) open_for(bi[d], batch[d], d == 0 ? par_pragma() : "");

  if (tile) {
    int64_t T = plan_.move_param("tile") > 0 ? plan_.move_param("tile") : 64;
    bool tail_bug = pit("tile_tail");
    if (M % T || N % T || K % T) feat_.tile_tail_bites = true;
    if (!pit("reorder_no_init")) {
      open_for("i", M, batch.empty() ? par_pragma() : "");
      open_for("j", N, simd_pragma());
      line(O("i", "j") + " = " + init + ";");
      close(2);
    }
    auto block = [&](const std::string& v, int64_t n, const std::string& pragma) {
      std::string T_s = std::to_string(T), n_s = std::to_string(n);
      if (!pragma.empty()) line(pragma);
      if (tail_bug)  // the last partial block is never visited
        line("for (int64_t " + v + "0 = 0; " + v + "0 + " + T_s + " <= " + n_s + "; " + v + "0 += " + T_s + ") {");
      else
        line("for (int64_t " + v + "0 = 0; " + v + "0 < " + n_s + "; " + v + "0 += " + T_s + ") {");
      ++indent_;
      line("const int64_t " + v + "1 = " + minexpr(v + "0 + " + T_s, n_s) + ";");
    };
    block("i", M, batch.empty() ? par_pragma() : "");
    block("k", K, "");
    block("j", N, "");
    open_for_range("i", "i0", "i1");
    open_for_range("k", "k0", "k1");
    line("const float av = " + A("i", "k") + ";");
    open_for_range("j", "j0", "j1", simd_pragma());
    line(O("i", "j") + " += av * " + B("k", "j") + ";");
    close(6);
  } else if (reorder) {
    open_for("i", M, batch.empty() ? par_pragma() : "");
    if (!pit("reorder_no_init")) {
      open_for("j", N, simd_pragma());
      line(O("i", "j") + " = " + init + ";");
      close();
    }
    open_for("k", K);
    line("const float av = " + A("i", "k") + ";");
    open_for("j", N, simd_pragma());
    line(O("i", "j") + " += av * " + B("k", "j") + ";");
    close(3);
  } else {
    bool no_init = pit("no_init_reduction") && dest_is_out(dst);
    open_for("i", M, batch.empty() ? par_pragma() : "");
    open_for("j", N);
    if (no_init) {
      open_for("k", K);
      line(O("i", "j") + " += " + A("i", "k") + " * " + B("k", "j") + ";");
      close();
      if (bias) line(O("i", "j") + " += " + init + ";");
    } else {
      line("float acc = " + init + ";");
      open_for("k", K, simd_pragma("+:acc"));
      line("acc += " + A("i", "k") + " * " + B("k", "j") + ";");
      close();
      line(O("i", "j") + " = acc;");
    }
    close(2);
  }
  close(opened);
  return dst;
}

// ---------------------------------------------------------------- convolution

Val Gen::conv(const std::string& node, const Val& x0, const Val& w, const Val* b,
              std::vector<int64_t> st, std::vector<int64_t> pd, std::vector<int64_t> dl,
              int64_t groups, bool transposed, const Shape& out_shape) {
  int nd = w.rank() - 2;
  if (nd < 1 || nd > 3 || x0.rank() != nd + 2) throw Unsupported("conv ranks (unbatched input?)");
  if (out_shape.size() != x0.shape.size()) throw Unsupported("conv without an output shape");
  if (st.size() != static_cast<size_t>(nd) || pd.size() != st.size() || dl.size() != st.size())
    throw Unsupported("conv arguments");
  Val x = as_contiguous(x0, node + "_in");
  Val wc = as_contiguous(w, node + "_w");
  feat_.has_product = true;
  int64_t N = x.shape[0], IC = x.shape[1], OC = out_shape[1];
  int64_t ICg = IC / groups, OCg = OC / groups;
  bool padded = false;
  for (int64_t p : pd) padded |= p > 0;
  if (padded) feat_.has_padding = true;
  if (!transposed) feat_.reorderable = true;
  bool check = !pit("padding_ignored");
  Val dst = dest(node, out_shape);
  Idx oi = {"n", "oc"}, ii = {"n", groups > 1 ? "ic" : "icg"};
  Idx wi = transposed ? Idx{groups > 1 ? "ic" : "icg", groups > 1 ? "ocg" : "oc"} : Idx{"oc", "icg"};
  for (int d = 0; d < nd; ++d) {
    oi.push_back("o" + std::to_string(d));
    ii.push_back("i" + std::to_string(d));
    wi.push_back("k" + std::to_string(d));
  }
  std::string wexpr;
  if (pit("transposed_weight") && !transposed) {  // [ICg, OC, K...] instead of [OC, ICg, K...]
    Val ws = wc;
    ws.shape[0] = ICg;
    ws.shape[1] = OC;
    ws.strides = contiguous_strides(ws.shape);
    Idx sw = wi;
    std::swap(sw[0], sw[1]);
    wexpr = elem(ws, sw);
  } else {
    wexpr = elem(wc, wi);
  }
  std::string bexpr = b ? elem(*b, {"oc"}) : "0.f";
  auto group_vars = [&] {
    if (groups > 1) {
      line("const int64_t g = oc / " + std::to_string(OCg) + ";");
      if (transposed) line("const int64_t ocg = oc % " + std::to_string(OCg) + ";");
    }
  };
  auto ic_var = [&] {
    if (groups > 1) line("const int64_t ic = g * " + std::to_string(ICg) + " + icg;");
  };

  if (!transposed && move("reorder")) {
    // Per (n, oc) output plane: accumulate weight * shifted input rows; the innermost loop runs
    // over contiguous output and input elements.
    int64_t plane = 1;
    for (int d = 0; d < nd; ++d) plane *= out_shape[2 + d];
    open_for("n", N, par_pragma());
    open_for("oc", OC);
    group_vars();
    line("float* op = " + dst.ptr + " + (n * " + std::to_string(OC) + " + oc) * " + std::to_string(plane) + ";");
    if (!pit("reorder_no_init")) {
      open_for("s", plane, simd_pragma());
      line("op[s] = " + bexpr + ";");
      close();
    }
    open_for("icg", ICg);
    ic_var();
    for (int d = 0; d < nd; ++d) open_for("k" + std::to_string(d), w.shape[2 + d]);
    line("const float wv = " + wexpr + ";");
    for (int d = 0; d < nd - 1; ++d) {
      std::string o = "o" + std::to_string(d), i = "i" + std::to_string(d);
      open_for(o, out_shape[2 + d]);
      line("const int64_t " + i + " = " + o + " * " + std::to_string(st[d]) + " - " + std::to_string(pd[d]) +
           " + k" + std::to_string(d) + " * " + std::to_string(dl[d]) + ";");
      if (check && pd[d] > 0) line("if (" + i + " < 0 || " + i + " >= " + std::to_string(x.shape[2 + d]) + ") continue;");
    }
    int L = nd - 1;
    std::string kL = "k" + std::to_string(L), S = std::to_string(st[L]);
    int64_t IL = x.shape[2 + L], OL = out_shape[2 + L];
    line("const int64_t sh = " + std::to_string(pd[L]) + " - " + kL + " * " + std::to_string(dl[L]) + ";");
    if (check) {
      line("const int64_t lo = sh > 0 ? (sh + " + S + " - 1) / " + S + " : 0;");
      line("int64_t hi = (" + std::to_string(IL) + " + sh + " + S + " - 1) / " + S + ";");
      line("hi = hi < " + std::to_string(OL) + " ? hi : " + std::to_string(OL) + ";");
    } else {
      line("const int64_t lo = 0, hi = " + std::to_string(OL) + ";");
    }
    std::string oL = "o" + std::to_string(L);
    ii[2 + L] = "(" + oL + " * " + S + " - sh)";
    open_for_range(oL, "lo", "hi", simd_pragma());
    Idx po;
    Shape ps;
    for (int d = 0; d < nd; ++d) {
      po.push_back("o" + std::to_string(d));
      ps.push_back(out_shape[2 + d]);
    }
    line("op[" + flat(po, ps) + "] += wv * " + elem(x, ii) + ";");
    close(1 + (nd - 1) + nd + 1 + 2);
    return dst;
  }

  // Naive: one output element at a time.
  open_for("n", N, par_pragma());
  open_for("oc", OC);
  group_vars();
  for (int d = 0; d < nd; ++d) open_for("o" + std::to_string(d), out_shape[2 + d]);
  bool no_init = pit("no_init_reduction") && dest_is_out(dst) && !transposed;
  std::string o = dst.ptr + "[" + flat(oi, out_shape) + "]";
  std::string acc = no_init ? o : "acc";
  if (!no_init) line("float acc = " + bexpr + ";");
  open_for("icg", ICg);
  ic_var();
  for (int d = 0; d < nd; ++d) {
    std::string k = "k" + std::to_string(d), i = "i" + std::to_string(d), od = "o" + std::to_string(d);
    std::string I = std::to_string(x.shape[2 + d]);
    open_for(k, w.shape[2 + d]);
    if (transposed) {
      line("const int64_t t" + std::to_string(d) + " = " + od + " + " + std::to_string(pd[d]) + " - " + k + " * " +
           std::to_string(dl[d]) + ";");
      std::string td = "t" + std::to_string(d);
      line("if (" + td + " < 0 || " + td + " % " + std::to_string(st[d]) + " != 0) continue;");
      line("const int64_t " + i + " = " + td + " / " + std::to_string(st[d]) + ";");
      line("if (" + i + " >= " + I + ") continue;");
    } else {
      line("const int64_t " + i + " = " + od + " * " + std::to_string(st[d]) + " - " + std::to_string(pd[d]) +
           " + " + k + " * " + std::to_string(dl[d]) + ";");
      if (check && pd[d] > 0) line("if (" + i + " < 0 || " + i + " >= " + I + ") continue;");
    }
  }
  line(acc + " += " + elem(x, ii) + " * " + wexpr + ";");
  close(nd + 1);
  if (no_init) {
    if (b) line(o + " += " + bexpr + ";");
  } else {
    line(o + " = acc;");
  }
  close(nd + 2);
  return dst;
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
