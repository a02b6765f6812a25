// The sim's shape queries and views (families of sim_ops.h): size, getattr and getitem,
// reshapes, permutations, (un)squeeze, expand, slices, concatenation and splits. Views are
// index maps over their source (Gen::view) and cost nothing; a reshape of a non-contiguous
// value and a concatenation are the only ones that compute.
#include "sim/sim_ops.h"

namespace evk::sim {

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

namespace {

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
      if (src == ns[d])
        maps[s].new_dim = d;
      else if (src != 1)
        throw Unsupported("expand of a non-1 dim");
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
    if (dims[d] == -1)
      neg = static_cast<int>(d);
    else
      known *= dims[d];
  }
  if (neg >= 0) dims[neg] = known ? numel / known : 0;
  return dims;
}

Val shape_tuple(const Shape& shape) {
  Val tu;
  tu.kind = Val::kTuple;
  for (int64_t d : shape) tu.elems.push_back(make_const(static_cast<double>(d), true));
  return tu;
}

}  // namespace

// ---------------------------------------------------------------- shape queries

std::optional<Val> OpCall::shape_query() const {
  if (t == "size") {
    Val x = a.tensor(0);
    if (a.has(1, "dim"))
      return make_const(static_cast<double>(x.shape[norm_dim(a.integer(1, "dim", 0), x.rank())]),
                        true);
    return shape_tuple(x.shape);
  }
  if (t == "dim") return make_const(a.tensor(0).rank(), true);
  if (t == "numel") return make_const(static_cast<double>(a.tensor(0).numel()), true);
  return std::nullopt;
}

std::optional<Val> OpCall::attribute() const {
  if (t != "getattr") return std::nullopt;
  Val x = a.val(0);
  std::string attr = a.str(1, "", "");
  if (attr == "shape") return shape_tuple(x.shape);
  if (attr == "T") {
    std::vector<int64_t> perm;
    for (int d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
    return permute(g, x, perm);
  }
  if (attr == "mT") return transpose(g, x, -2, -1);
  throw Unsupported("attribute " + attr);
}

// A tuple's element, or a tensor subscript (ints, slices, None, Ellipsis).
std::optional<Val> OpCall::getitem() const {
  if (t != "getitem") return std::nullopt;
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

// ---------------------------------------------------------------- views

// view / reshape / flatten / unflatten: a new shape over the same elements.
std::optional<Val> OpCall::reshape() const {
  if (t == "view" || t == "reshape" || t == "view_as" || t == "reshape_as") {
    Val x = a.tensor(0);
    Shape ns = t.size() > 7 || t == "view_as" ? a.tensor(1).shape
                                              : infer_view_shape(a.varints(1, "shape"), x.numel());
    if (!fx.empty() || op.shape_known) ns = fx;
    return g.reshape(x, ns, node);
  }
  if (t == "flatten" || t == "module:Flatten") {
    Val x = a.tensor(0);
    int64_t s0 = t == "flatten" ? a.integer(1, "start_dim", 0)
                                : static_cast<int64_t>(mod_real(op, 0, "start_dim", 1));
    int64_t s1 = t == "flatten" ? a.integer(2, "end_dim", -1)
                                : static_cast<int64_t>(mod_real(op, 1, "end_dim", -1));
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
  return std::nullopt;
}

// Dims permuted, inserted, dropped, broadcast or reversed.
std::optional<Val> OpCall::dim_view() const {
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
  return std::nullopt;
}

std::optional<Val> OpCall::narrow_or_diag() const {
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
    return g.lazy({x.shape[0], x.shape[0]}, [&g = g, src](const Idx& ix) {
      return "(" + ix[0] + " == " + ix[1] + " ? " + g.elem(src, {ix[0]}) + " : 0.f)";
    });
  }
  return std::nullopt;
}

// cat / stack: a lazy select over the parts along the dim.
std::optional<Val> OpCall::concatenate() const {
  if (t != "cat" && t != "concat" && t != "concatenate" && t != "stack") return std::nullopt;
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
  // Shapes the sim cannot model (a part of another rank) are not indexed past their end.
  if (d < 0 || d >= static_cast<int>(ns.size())) throw Unsupported("cat dim out of range");
  for (const Val& v : parts)
    if (v.shape.size() != ns.size()) throw Unsupported("cat of parts of different ranks");
  ns[d] = 0;
  std::vector<int64_t> offs;
  for (const Val& v : parts) {
    offs.push_back(ns[d]);
    ns[d] += v.shape[d];
  }
  return g.lazy(ns, [&g = g, parts, offs, d](const Idx& ix) {
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

// chunk / split: a tuple of views at offsets along the dim.
std::optional<Val> OpCall::chunk_or_split() const {
  if (t != "chunk" && t != "split") return std::nullopt;
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
      for (int64_t s = 0; s < x.shape[d]; s += v[0])
        sizes.push_back(std::min(v[0], x.shape[d] - s));
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

}  // namespace evk::sim
