// What the device generators (sim_cuda.cpp, sim_opencl.cpp, sim_ascendc.cpp) share. All
// graphs (an elementwise chain over one input, a row operation, a reduction over one dimension
// or a 2-D product, each with a fused elementwise epilogue), so reading the fx graph into that
// shape, the op expressions and the plan header live here once; each backend keeps the text it
// emits and the checks where it really differs (as the virtual hooks below). Internal to
// src/llm/sim*.cpp; same determinism invariant as sim_internal.h.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/sim_internal.h"

namespace evk::sim {

// A float literal for generated code: 2 -> "2.0f".
std::string flt(double v);
// A numeric keyword of an op (module attribute, kwarg, or the second positional argument).
double kwnum(const FxOp& op, const char* name, double def);
// Unary elementwise op `t` as an expression of v; nullopt when `t` is not one. `fsuffix` is
// appended to math function names: CUDA's float functions end in f (expf), OpenCL's do not.
std::optional<std::string> unary(const std::string& t, const FxOp& op, const std::string& v,
                                 const std::string& fsuffix);

// An in[k] tensor operand of the epilogue.
struct Operand {
  int input = -1;
  int64_t numel = 0;
  bool broadcast = false;  // a trailing-dims operand smaller than the main value
};

enum class Main { kElementwise, kRow, kReduce, kProduct };

// One epilogue step: (value, flat index expression) -> value.
using Expr = std::function<std::string(const std::string& v, const std::string& idx)>;

// Reads the graph; the subclass writes the code. run() throws nothing: a graph outside the
// templates becomes a "no template" reply, as in the CPU generator.
class DeviceGen {
 public:
  DeviceGen(const PromptView& p, const Plan& plan) : p_(p), plan_(plan) {}
  virtual ~DeviceGen() = default;
  GenResult run();

 protected:
  // ---- backend hooks ----
  virtual const char* language() const = 0;  // "CUDA": in the no-template reply
  virtual const char* math_suffix() const = 0;
  virtual void on_elementwise(bool is_unary) = 0;  // feature counting during the walk
  // The tensor an add/sub/mul/div takes from in[k] (k < 0: not an input); also starts the
  // main value from `mine` (the order decides which error a bad graph reports).
  virtual const TensorLine* binary_operand(const FxOp& op, const std::string& t, int k,
                                           const Py& mine) = 0;
  virtual void check_broadcast(const FxOp& op, const TensorLine& ot, const Operand& o) const = 0;
  // A non-elementwise op `t` on a0: sets main_ and its parameters, or throws why not.
  virtual void layer(const FxOp& op, const std::string& t, const Py& a0) = 0;
  virtual void set_features() = 0;
  virtual std::string assemble() const = 0;

  // ---- shared helpers ----
  bool pit(const char* n) const { return plan_.pitfalls.count(n) > 0; }
  bool move(const char* n) const { return plan_.has_move(n); }
  static int64_t numel(const std::vector<int64_t>& s);
  const TensorLine* tensor(const std::string& name) const;
  const TensorLine* input(int k) const;  // in[k], nullptr when absent
  int input_of(const Py& a) const;       // the placeholder index a names, -2 otherwise
  bool is_main(const Py& a) const { return a.kind == Py::kName && a.s == main_node_; }
  const TensorLine* input_tensor(const Py& a, const std::string& node) const;
  void start_main_from(const Py& a, const std::string& node);
  void reduction(const FxOp& op, const std::string& t, int rank);  // sum/mean/amax/amin
  // softmax's dim as CUDA and Ascend C read it: module attribute, kwarg or second argument.
  static int softmax_dim(const FxOp& op);
  // A row softmax/log_softmax `t` over the last of `rank` dims, or throws for another dim.
  void row_softmax(const FxOp& op, const std::string& t, int rank, int dim);
  // An affine LayerNorm over the last dim with weight w and bias b (eps from the module).
  void row_layer_norm(const FxOp& op, const TensorLine& w, const TensorLine& b);
  // A product by nn.Linear's weight w (and bias b when present).
  void linear_product(const TensorLine& w, const TensorLine* b);
  void draft_features();  // the cold-start features both backends derive alike
  std::string epilogue(const std::string& v, const std::string& idx) const;
  std::string moves_line() const;  // "// evk-sim-moves: ..." without the newline
  // The epilogue operands as a parameter or argument list: before + k + after for each in[k].
  std::string operand_list(const std::string& before, const std::string& after = "") const;
  // The four "v.x = ...;" lines of a float4 value v at flat index 4 * i, each after `indent`.
  std::string epilogue4(const std::string& indent) const;

  const PromptView& p_;
  const Plan& plan_;
  Features feat_;
  std::map<std::string, int> placeholders_;
  std::string main_node_;
  Main main_ = Main::kElementwise;
  int src_ = -1;
  std::vector<Expr> chain_;
  // The chain's ops by name, for generators that emit one API call per op (ascendc): the
  // op, its scalar constant (binary ops with a number) and whether the value was on the left.
  struct ChainOp {
    std::string t;
    const FxOp* op = nullptr;
    bool scalar = false, left = true;
    double c = 0;
  };
  std::vector<ChainOp> chain_ops_;
  std::vector<Operand> operands_;
  std::vector<int64_t> out_shape_;
  std::string row_op_, red_op_;
  int red_dim_ = 0;
  int ln_w_ = -1, ln_b_ = -1;
  double ln_eps_ = 1e-5;
  int mm_b_ = -1, lin_bias_ = -1;
  bool linear_ = false;

 private:
  void walk();
  void binary(const FxOp& op, const std::string& t);
};

}  // namespace evk::sim
