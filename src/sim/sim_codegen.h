// The sim's code generator: torch.fx ops -> C++ loop nests for the CPU ABI.
//
// Model: every fx node gets a value (Val). A value is a buffer view (pointer, shape, strides,
// offset: views such as permute/transpose/unsqueeze/slices cost nothing), a lazy elementwise
// expression (a function from loop indices to a C++ expression: fusion), a Python constant,
// or a tuple. Ops that cannot be lazy (reductions, products, convolutions, pooling, norms)
// write a buffer. The naive coder materialises every op into a std::vector temporary and
// copies the result into out[k] at the end; the refining moves change exactly that.
// Invariants: shapes are compile-time constants taken from the prompt; generated identifiers
// avoid the verifier's forbidden tokens (at, open, write, close, ...).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/sim_internal.h"

namespace evk::sim {

using Idx = std::vector<std::string>;  // one index expression per dimension
using Shape = std::vector<int64_t>;

struct Val {
  enum Kind { kBuf, kLazy, kConst, kTuple, kNone } kind = kNone;
  std::string dt = "F32";  // element dtype of a buffer (lazy values are float)
  Shape shape;
  std::string ptr;  // kBuf: pointer variable
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::shared_ptr<std::function<std::string(const Idx&)>> fn;  // kLazy
  double c = 0;  // kConst
  bool c_int = false;
  std::vector<Val> elems;  // kTuple

  int64_t numel() const;
  int rank() const { return static_cast<int>(shape.size()); }
  bool contiguous() const;
  bool is_tensor() const { return kind == kBuf || kind == kLazy; }
};

Val make_const(double v, bool is_int = false);
Val make_buf(const std::string& ptr, const Shape& shape, const std::string& dt = "F32");
Shape contiguous_strides(const Shape& s);

// An op the templates do not cover (or an argument form they do not understand).
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How a view maps its indices onto its source: per source dim, offset + scale * idx[new_dim]
// (new_dim < 0: a fixed index). Covers permute, transpose, (un)squeeze, expand, flip, slices,
// select and diagonals.
struct DimMap {
  int new_dim = -1;
  int64_t scale = 1;
  int64_t offset = 0;
};

class Gen {
 public:
  Gen(const PromptView& p, const Plan& plan);
  GenResult run();

  // ---- used by the op templates (sim_ops*.cpp, sim_kernels.cpp) ----
  const Plan& plan() const { return plan_; }
  bool pit(const std::string& name) const { return plan_.pitfalls.count(name) > 0; }
  bool move(const std::string& name) const { return plan_.has_move(name); }
  Features& feat() { return feat_; }

  // Emission.
  void line(const std::string& s);
  void open_for(const std::string& var, int64_t n, const std::string& pragma = "");
  void open_for_range(const std::string& var, const std::string& lo, const std::string& hi,
                      const std::string& pragma = "");
  // Emits `header`, a loop head ending in `{` that open_for cannot spell, and indents.
  void open_block(const std::string& header);
  void close(int n = 1);
  // Opens one loop per dim (vars prefix0, prefix1, ...); the outermost carries the parallel
  // pragma when `par`, the innermost `#pragma omp simd` when the simd move is on and `simd`.
  Idx open_loops(const Shape& shape, const std::string& prefix, bool par, bool simd);
  // A row operation's loops: one per dim of `shape` but `dim`, with the variables of `xi`, the
  // outermost carrying the parallel pragma; returns how many it opened (the caller opens the
  // loop along `dim`).
  int open_loops_except(const Idx& xi, const Shape& shape, int dim);
  // k0, k1, ... with "r" along `dim`: the index of a row operation.
  static Idx row_index(int rank, int dim);
  std::string par_pragma() const;   // "" unless the omp move is on
  std::string simd_pragma(const std::string& reduction = "") const;
  std::string fresh(const std::string& base);  // a unique C++ identifier
  void use_math() { feat_.uses_math = true; }
  std::string helper(const std::string& name);  // declares a static inline helper, returns name

  // Values.
  std::string elem(const Val& v, const Idx& idx);      // as float
  std::string elem_raw(const Val& v, const Idx& idx);  // in the buffer's own type
  static std::string flat(const Idx& idx, const Shape& shape);
  Idx bcast(const Val& operand, const Idx& out_idx, const Shape& out_shape);
  Val lazy(const Shape& shape, std::function<std::string(const Idx&)> fn);
  // Elementwise op over broadcast operands; materialised at once unless the fuse move is on.
  Val ew(const std::string& node, const std::vector<Val>& operands,
         std::function<std::string(const std::vector<std::string>&)> combine,
         const Shape* shape = nullptr);
  Val finish_ew(const std::string& node, Val v);  // materialise unless fused
  Val materialize(const Val& v, const std::string& node);
  Val as_contiguous(const Val& v, const std::string& node);  // a contiguous buffer
  Val view(const Val& v, const Shape& new_shape, const std::vector<DimMap>& maps);
  Val reshape(const Val& v, const Shape& new_shape, const std::string& node);
  // Where node's result goes: out[k] directly (notemps move, or a pitfall), else a temporary.
  Val dest(const std::string& node, const Shape& shape, const std::string& dt = "F32");
  bool dest_is_out(const Val& d) const { return d.ptr.rfind("out", 0) == 0; }
  bool is_final(const std::string& node) const { return final_.count(node) > 0; }
  std::string tensor_ptr(const TensorLine& t);  // declares in[k] / out[k] pointers on first use
  const TensorLine* tensor_named(const std::string& name) const;
  const FxOp& op() const { return *cur_; }
  int uses(const std::string& node) const;

  // Templates (sim_kernels.cpp).
  Val reduce(const std::string& node, const Val& x, std::vector<int> dims, bool keepdim,
             const std::string& kind, double correction = 0);
  Val softmax(const std::string& node, const Val& x, int dim, bool log);
  Val row_norm(const std::string& node, const Val& x, int ndims_row, const Val* w, const Val* b,
               double eps);
  Val group_norm(const std::string& node, const Val& x, int64_t groups, const Val* w,
                 const Val* b, double eps);
  // Writes mean, variance and (x - mean) * rstd [* scale] [+ shift] over one row; `row(clause)`
  // opens the row's loops (the innermost with the reduction clause) and returns how many.
  void normalize_rows(const Val& x, const Val& dst, const Idx& xi, int64_t count, double eps,
                      const std::function<int(const std::string&)>& row, const std::string& scale,
                      const std::string& shift);
  Val l2_normalize(const std::string& node, const Val& x, int dim, double p, double eps);
  Val cumulative(const std::string& node, const Val& x, int dim, bool prod);
  Val cosine_similarity(const std::string& node, const Val& a, const Val& b, int dim, double eps);
  Val cross_entropy(const std::string& node, const Val& logits, const Val& target,
                    const std::string& reduction);
  Val matmul(const std::string& node, Val a, Val b, const Val* bias, const Shape& out_shape);
  Val conv(const std::string& node, const Val& x, const Val& w, const Val* b,
           std::vector<int64_t> stride, std::vector<int64_t> pad, std::vector<int64_t> dil,
           int64_t groups, bool transposed, const Shape& out_shape);
  // Opens the loops b0.. over the first `lead` dims of x (the outer one parallel): a pooling
  // kernel's batch and channel loops. Returns their index names.
  Idx pool_lead_loops(const Val& x, int lead);
  Val pool(const std::string& node, const Val& x, int nd, bool is_max, std::vector<int64_t> k,
           std::vector<int64_t> stride, std::vector<int64_t> pad, std::vector<int64_t> dil,
           bool count_include_pad, const Shape& out_shape);
  Val adaptive_pool(const std::string& node, const Val& x, int nd, bool is_max,
                    const Shape& out_shape);

  // Op dispatch (sim_ops.cpp).
  Val call(const FxOp& op);

 private:
  void emit_outputs(const FxOp& out_op);
  void unknown(const FxOp& op, const std::string& why);
  std::string assemble();
  void count_uses();

  const PromptView& p_;
  const Plan& plan_;
  Features feat_;
  std::vector<std::string> body_;
  int indent_ = 1;
  std::map<std::string, int> names_;
  std::map<std::string, Val> env_;
  std::map<std::string, int> uses_;
  std::map<std::string, int> final_;  // node -> out index it feeds alone
  std::map<std::string, std::string> helpers_;
  std::vector<std::string> helper_order_;
  std::map<std::string, std::string> decls_;  // pointer var -> declaration
  std::vector<std::string> decl_order_;
  std::set<int> outs_written_;
  std::vector<std::string> unknown_ops_;
  const FxOp* cur_ = nullptr;
  int placeholder_ = 0;

  friend Val call_op(Gen&, const FxOp&);
};

// Float literal for generated code ("2.0f", "1e-05f", "INFINITY").
std::string flit(double v);
std::string ilit(int64_t v);
std::string ctype(const std::string& dt);  // "F32" -> "float"

}  // namespace evk::sim
