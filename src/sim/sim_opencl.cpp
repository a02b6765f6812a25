// The offline coder's OpenCL generator: reads the fx op list and the tensor list from the
// prompt and writes a kernel.cpp for the opencl backend (knowledge/opencl/guide.md): one
// R"evk_cl( program string plus host code on the evk_cl helper. It covers what a first
// OpenCL draft usually meets: an elementwise chain over one input (scalar, same-shape or
// trailing-broadcast tensor operands), a row operation over the last dimension (softmax,
// log_softmax, LayerNorm), a reduction over one dimension (sum, mean, amax, amin) and a product
// (matmul, mm, nn.Linear), each with an elementwise epilogue fused into its store. Anything
// else is reported as an op without a template. Cold-start pitfalls of the shared table are
// written into the code where the plan names them, with `// evk-pitfall: NAME` markers.
// Refining moves: simd (float4 loads for elementwise chains), reorder (one work-item per row
// instead of a __local tree reduction), tile (16x16 __local tiles for products), omp (larger
// work-groups). The graph reading is shared with the CUDA generator (sim_device.h); this file
// holds the OpenCL text and the checks where OpenCL's templates differ.
#include <algorithm>
#include <set>
#include <sstream>

#include "sim/sim_device.h"

namespace evk::sim {
namespace {

class OpenClGen : public DeviceGen {
 public:
  using DeviceGen::DeviceGen;

 private:
  const char* language() const override { return "OpenCL"; }
  const char* math_suffix() const override { return ""; }
  void on_elementwise(bool is_unary) override {
    ++feat_.ew_ops;
    feat_.uses_math = feat_.uses_math || is_unary;
  }

  const TensorLine* binary_operand(const FxOp& op, const std::string& t, int k,
                                   const Py& mine) override {
    const TensorLine* ot = input(k);
    if (!ot) throw std::string(op.name + " (" + t + " of two computed values)");
    start_main_from(mine, op.name);
    return ot;
  }

  void check_broadcast(const FxOp& op, const TensorLine& ot, const Operand& o) const override {
    size_t r = ot.shape.size();
    for (size_t d = 0; d < r; ++d)
      if (ot.shape[r - 1 - d] != out_shape_[out_shape_.size() - 1 - d] && o.numel != 1)
        throw std::string(op.name + " (broadcast over inner or leading size-1 dimensions)");
  }

  // The operand is checked before the op is recognised.
  void layer(const FxOp& op, const std::string& t, const Py& a0) override {
    int rank = static_cast<int>(input_tensor(a0, op.name)->shape.size());
    if (t == "softmax" || t == "log_softmax") {
      row_softmax(op, t, rank, static_cast<int>(kwnum(op, "dim", -1)));
    } else if (t == "layer_norm") {
      layer_norm(op);
    } else if (t == "sum" || t == "mean" || t == "amax" || t == "amin") {
      reduction(op, t, rank);
    } else if (t == "matmul" || t == "mm" || t == "linear") {
      product(op, t, rank);
    } else {
      throw std::string(op.name + " (" + t + ")");
    }
  }

  void layer_norm(const FxOp& op) {
    const TensorLine* w = tensor("param." + op.target + ".weight");
    const TensorLine* b = tensor("param." + op.target + ".bias");
    if (op.kind != "call_module" || !w || !b || w->shape.size() != 1)
      throw std::string(op.name + " (LayerNorm without affine, functional or over several dims)");
    row_layer_norm(op, *w, *b);
  }

  void product(const FxOp& op, const std::string& t, int rank) {
    if (t != "linear") {
      int kb = op.args.items.size() > 1 ? input_of(op.args.items[1]) : -2;
      if (kb < 0 || rank != 2 || !input(kb) || input(kb)->shape.size() != 2)
        throw std::string(op.name + " (a product that is not 2-D input @ input)");
      mm_b_ = kb;
      main_ = Main::kProduct;
      return;
    }
    const TensorLine* w = tensor("param." + op.target + ".weight");
    if (op.kind != "call_module" || rank != 2 || !w)
      throw std::string(op.name + " (functional or batched linear)");
    linear_product(*w, tensor("param." + op.target + ".bias"));
  }

  void set_features() override {
    feat_.opencl = true;
    feat_.uses_math = feat_.uses_math || main_ == Main::kRow;
    if (p_.refine) {
      feat_.tileable = main_ == Main::kProduct;
      feat_.reorderable = main_ == Main::kRow;
      feat_.ew_ops = 0;  // chains are always fused into one kernel here
      return;
    }
    draft_features();
  }

  std::string operand_params() const { return operand_list(", __global const float* t"); }

  std::string program() const {
    std::ostringstream s;
    std::string bound = pit("off_by_one_write") ? "n - 1" : "n";
    switch (main_) {
      case Main::kElementwise:
        if (move("simd") && operands_.empty()) {
          // Four elements per work-item through vload4/vstore4; the tail (n % 4) by `fused`.
          s << "__kernel void fused4(__global const float* x, __global float* y, long n4) {\n"
            << "  long i = get_global_id(0);\n  if (i >= n4) return;\n"
            << "  float4 v = vload4(i, x);\n"
            << epilogue4("  ") << "  vstore4(v, i, y);\n}\n\n";
        }
        s << "__kernel void fused(__global const float* x, __global float* y, long from, long n"
          << operand_params() << ") {\n"
          << "  long i = from + get_global_id(0);\n";
        s << "  if (i < " << bound << ") y[i] = " << epilogue("x[i]", "i") << ";\n}\n";
        break;
      case Main::kRow:
        s << row_program();
        break;
      case Main::kReduce: {
        std::string init = red_op_ == "amax"   ? "-INFINITY"
                           : red_op_ == "amin" ? "INFINITY"
                                               : "0.0f";
        std::string acc = pit("no_init_reduction") && feat_.accum_final ? "y[g]" : "s";
        std::string upd = red_op_ == "amax"   ? acc + " = fmax(" + acc + ", p[r * inner]);"
                          : red_op_ == "amin" ? acc + " = fmin(" + acc + ", p[r * inner]);"
                                              : acc + " += p[r * inner];";
        std::string count = pit("mean_wrong_count") && feat_.has_mean ? "last" : "reduce";
        s << "__kernel void reduce_dim(__global const float* x, __global float* y, long reduce, "
             "long inner, "
             "long last, long n"
          << operand_params() << ") {\n"
          << "  long g = get_global_id(0);\n  if (g >= n) return;\n"
          << "  __global const float* p = x + (g / inner) * reduce * inner + g % inner;\n";
        if (acc == "s") s << "  float s = " << init << ";\n";
        s << "  for (long r = 0; r < reduce; ++r) " << upd << "\n";
        std::string v = acc;
        if (red_op_ == "mean") v = "(" + acc + " / (float)" + count + ")";
        s << "  y[g] = " << epilogue(v, "g") << ";\n}\n";
        break;
      }
      case Main::kProduct:
        s << product_program();
        break;
    }
    return s.str();
  }

  std::string row_program() const {
    std::ostringstream s;
    bool ln = row_op_ == "layer_norm";
    std::string params = ln ? ", __global const float* w, __global const float* b" : "";
    std::string shift = pit("softmax_no_max_shift") ? "" : " - m";
    auto store = [&](const std::string& c) {
      std::string v = ln ? "(xr[" + c + "] - mean) * inv * w[" + c + "] + b[" + c + "]"
                      : row_op_ == "softmax" ? "exp(xr[" + c + "]" + shift + ") * inv"
                                             : "xr[" + c + "]" + shift + " - lse";
      return "yr[" + c + "] = " + epilogue(v, "row * cols + " + c) + ";";
    };
    std::string eps = flt(ln_eps_);
    if (move("reorder")) {
      // One work-item per row: plain loops, no __local memory and no barriers.
      s << "__kernel void row_op(__global const float* x, __global float* y, long rows, long cols"
        << params << operand_params() << ") {\n"
        << "  long row = get_global_id(0);\n  if (row >= rows) return;\n"
        << "  __global const float* xr = x + row * cols;\n  __global float* yr = y + row * cols;\n";
      if (ln) {
        s << "  float mean = 0.0f;\n  for (long c = 0; c < cols; ++c) mean += xr[c];\n  mean /= "
             "cols;\n"
          << "  float var = 0.0f;\n  for (long c = 0; c < cols; ++c) { float d = xr[c] - mean; var "
             "+= d * d; }\n"
          << "  float inv = rsqrt(var / cols + " << eps << ");\n";
      } else {
        s << "  float m = -INFINITY;\n  for (long c = 0; c < cols; ++c) m = fmax(m, xr[c]);\n"
          << "  float sum = 0.0f;\n  for (long c = 0; c < cols; ++c) sum += exp(xr[c]" << shift
          << ");\n"
          << "  float inv = 1.0f / sum, lse = log(sum);\n";
      }
      s << "  for (long c = 0; c < cols; ++c) " << store("c") << "\n}\n";
      return s.str();
    }
    // A work-group of 64 per row, tree reductions in __local memory.
    std::string bar = pit("ocl_missing_barrier") ? "" : "    barrier(CLK_LOCAL_MEM_FENCE);\n";
    auto reduce = [&](const std::string& var, bool is_max) {
      std::ostringstream r;
      r << "  red[lid] = " << var << ";\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
        << "  for (int s = WG / 2; s > 0; s >>= 1) {\n"
        << "    if (lid < s) red[lid] = "
        << (is_max ? "fmax(red[lid], red[lid + s])" : "red[lid] + red[lid + s]") << ";\n"
        << bar << "  }\n  " << var << " = red[0];\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
      return r.str();
    };
    s << "#define WG 64\n"
      << "__kernel void row_op(__global const float* x, __global float* y, long rows, long cols"
      << params << operand_params() << ") {\n"
      << "  __local float red[WG];\n  long row = get_group_id(0);\n  int lid = get_local_id(0);\n"
      << "  __global const float* xr = x + row * cols;\n  __global float* yr = y + row * cols;\n";
    if (ln) {
      s << "  float mean = 0.0f;\n  for (long c = lid; c < cols; c += WG) mean += xr[c];\n"
        << reduce("mean", false) << "  mean /= cols;\n"
        << "  float var = 0.0f;\n  for (long c = lid; c < cols; c += WG) { float d = xr[c] - mean; "
           "var += d * d; }\n"
        << reduce("var", false) << "  float inv = rsqrt(var / cols + " << eps << ");\n";
    } else {
      s << "  float m = -INFINITY;\n  for (long c = lid; c < cols; c += WG) m = fmax(m, xr[c]);\n"
        << reduce("m", true)
        << "  float sum = 0.0f;\n  for (long c = lid; c < cols; c += WG) sum += exp(xr[c]" << shift
        << ");\n"
        << reduce("sum", false) << "  float inv = 1.0f / sum, lse = log(sum);\n";
    }
    s << "  for (long c = lid; c < cols; c += WG) " << store("c") << "\n}\n";
    return s.str();
  }

  std::string product_program() const {
    std::ostringstream s;
    bool tr = pit("transposed_weight");
    // B element (p, col): matmul reads b[p][col] of [k, n]; Linear reads w[col][p] of [n, k].
    std::string bidx = linear_ != tr ? "col * k + p" : "p * n + col";
    std::string bias = lin_bias_ >= 0 ? ", __global const float* bias" : "";
    std::string v = lin_bias_ >= 0 ? "(acc + bias[col])" : "acc";
    s << "__kernel void matmul(__global const float* a, __global const float* b, __global float* "
         "c, long m, "
         "long n, long k"
      << bias << operand_params() << ") {\n";
    if (move("tile")) {
      s << "#define T 16\n"
        << "  __local float ta[T][T], tb[T][T];\n"
        << "  int tx = get_local_id(0), ty = get_local_id(1);\n"
        << "  long col = get_global_id(0), row = get_global_id(1);\n"
        << "  float acc = 0.0f;\n"
        << "  for (long t = 0; t < k; t += T) {\n"
        << "    ta[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;\n"
        << "    tb[ty][tx] = (t + ty < k && col < n) ? "
        << (linear_ != tr ? "b[col * k + t + ty]" : "b[(t + ty) * n + col]") << " : 0.0f;\n"
        << "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        << "    for (int p = 0; p < T; ++p) acc += ta[ty][p] * tb[p][tx];\n"
        << "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n"
        << "  if (row < m && col < n) c[row * n + col] = " << epilogue(v, "row * n + col")
        << ";\n}\n";
      return s.str();
    }
    s << "  long col = get_global_id(0), row = get_global_id(1);\n"
      << "  if (row >= m || col >= n) return;\n"
      << "  float acc = 0.0f;\n"
      << "  for (long p = 0; p < k; ++p) acc += a[row * k + p] * b[" << bidx << "];\n"
      << "  c[row * n + col] = " << epilogue(v, "row * n + col") << ";\n}\n";
    return s.str();
  }

  // Host code: buffers, arguments, launches; nothing else (the static gate's rules).
  std::string host() const {
    std::ostringstream s;
    int local = move("omp") ? 256 : 64;
    std::string ops;
    for (const auto& o : operands_) ops += ", t" + std::to_string(o.input);
    for (const auto& o : operands_)
      s << "  evk_cl::Buffer t" << o.input << "(rt, in[" << o.input << "], CL_MEM_READ_ONLY);\n";
    s << "  evk_cl::Buffer x(rt, in[" << src_
      << "], CL_MEM_READ_ONLY), y(rt, out[0], CL_MEM_WRITE_ONLY);\n";
    // The size passed as cl_int where the kernel declares `long` (a 4-byte argument for an
    // 8-byte parameter): clSetKernelArg answers CL_INVALID_ARG_SIZE.
    std::string size_t_name = pit("ocl_arg_type_mismatch") ? "cl_int" : "cl_long";
    switch (main_) {
      case Main::kElementwise: {
        s << "  " << size_t_name << " n = evk_cl::numel(out[0]);\n";
        if (move("simd") && operands_.empty()) {
          s << "  cl_kernel k4 = evk_cl::kernel(rt, \"fused4\");\n"
            << "  cl_long n4 = n / 4, from = n4 * 4;\n"
            << "  EVK_CL_CHECK(evk_cl::set_args(k4, x, y, n4));\n"
            << "  EVK_CL_CHECK(evk_cl::launch(rt, k4, n4, " << local << "));\n"
            << "  if (from < n) {\n"
            << "    EVK_CL_CHECK(evk_cl::set_args(k, x, y, from, n));\n"
            << "    EVK_CL_CHECK(evk_cl::launch(rt, k, n - from, 4));\n  }\n";
        } else {
          s << "  cl_long from = 0;\n"
            << "  EVK_CL_CHECK(evk_cl::set_args(k, x, y, from, n" << ops << "));\n";
          if (pit("ocl_global_not_rounded"))
            s << "  size_t global = n, group = " << local << ";\n"
              << "  EVK_CL_CHECK(clEnqueueNDRangeKernel(rt.queue, k, 1, nullptr, &global, &group, "
                 "0, nullptr, nullptr));\n";
          else
            s << "  EVK_CL_CHECK(evk_cl::launch(rt, k, n, " << local << "));\n";
        }
        break;
      }
      case Main::kRow: {
        bool ln = row_op_ == "layer_norm";
        if (ln)
          s << "  evk_cl::Buffer w(rt, in[" << ln_w_ << "], CL_MEM_READ_ONLY), b(rt, in[" << ln_b_
            << "], CL_MEM_READ_ONLY);\n";
        s << "  " << size_t_name << " cols = evk_cl::dim(in[" << src_ << "], -1);\n"
          << "  cl_long rows = evk_cl::numel(in[" << src_ << "]) / cols;\n"
          << "  EVK_CL_CHECK(evk_cl::set_args(k, x, y, rows, cols" << (ln ? ", w, b" : "") << ops
          << "));\n";
        if (move("reorder"))
          s << "  EVK_CL_CHECK(evk_cl::launch(rt, k, rows, 16));\n";
        else
          s << "  EVK_CL_CHECK(evk_cl::launch(rt, k, rows * 64, 64));\n";
        break;
      }
      case Main::kReduce:
        s << "  " << size_t_name << " reduce = evk_cl::dim(in[" << src_ << "], " << red_dim_
          << ");\n"
          << "  cl_long inner = evk_cl::numel_range(in[" << src_ << "], " << red_dim_ + 1 << ");\n"
          << "  cl_long last = evk_cl::dim(in[" << src_ << "], -1);\n"
          << "  cl_long n = evk_cl::numel(out[0]);\n"
          << "  EVK_CL_CHECK(evk_cl::set_args(k, x, y, reduce, inner, last, n" << ops << "));\n"
          << "  EVK_CL_CHECK(evk_cl::launch(rt, k, n, " << local << "));\n";
        break;
      case Main::kProduct:
        s << "  evk_cl::Buffer b(rt, in[" << mm_b_ << "], CL_MEM_READ_ONLY);\n";
        if (lin_bias_ >= 0)
          s << "  evk_cl::Buffer bias(rt, in[" << lin_bias_ << "], CL_MEM_READ_ONLY);\n";
        s << "  " << size_t_name << " m = evk_cl::dim(in[" << src_ << "], 0);\n"
          << "  cl_long k_dim = evk_cl::dim(in[" << src_ << "], 1);\n"
          << "  cl_long n = evk_cl::dim(out[0], 1);\n"
          << "  EVK_CL_CHECK(evk_cl::set_args(k, x, b, y, m, n, k_dim"
          << (lin_bias_ >= 0 ? ", bias" : "") << ops << "));\n"
          << "  EVK_CL_CHECK(evk_cl::launch2d(rt, k, n, m, 16, 16));\n";
        break;
    }
    return s.str();
  }

  std::string kernel_name() const {
    switch (main_) {
      case Main::kElementwise:
        return "fused";
      case Main::kRow:
        return "row_op";
      case Main::kReduce:
        return "reduce_dim";
      case Main::kProduct:
        return "matmul";
    }
    return "fused";
  }

  std::string assemble() const {
    std::ostringstream s;
    // Only the pitfalls this generator writes into the code are marked (the shared table also
    // holds CPU-only ones, e.g. omp_collapse, that have no place in an OpenCL kernel).
    static const std::set<std::string> kWritten = {
        "missing_header",         "wrong_abi",           "missing_return",
        "off_by_one_write",       "transposed_weight",   "no_init_reduction",
        "softmax_no_max_shift",   "broadcast_ignored",   "mean_wrong_count",
        "ocl_global_not_rounded", "ocl_missing_barrier", "ocl_arg_type_mismatch"};
    for (const std::string& p : plan_.pitfalls)
      if (kWritten.count(p)) s << "// evk-pitfall: " << p << "\n";
    s << moves_line();
    s << "\n// Written by evokernel's offline coder (sim) from OpenCL templates; not a language "
         "model.\n";
    if (!(pit("missing_header") && feat_.uses_math)) s << "#include \"evokernel/opencl.h\"\n";
    s << "\nstatic const char* kSource = R\"evk_cl(\n" << program() << ")evk_cl\";\n\n";
    if (pit("wrong_abi"))
      s << "extern \"C\" EVK_EXPORT int evk_forward(evk_tensor* in, int32_t n_in, evk_tensor* out, "
           "int32_t n_out) {\n";
    else
      s << "extern \"C\" EVK_EXPORT int evk_forward(const evk_tensor* in, int32_t n_in, "
           "evk_tensor* out, "
           "int32_t n_out) {\n";
    s << "  if (n_in < " << n_inputs() << " || n_out < 1) return 1;\n"
      << "  evk_cl::Runtime& rt = evk_cl::runtime(kSource);\n"
      << "  if (!rt.ok()) return rt.fail();\n"
      << "  cl_kernel k = evk_cl::kernel(rt, \"" << kernel_name() << "\");\n"
      << host();
    if (pit("missing_return"))
      s << "  evk_cl::finish(rt, y);\n";
    else
      s << "  return evk_cl::finish(rt, y);\n";
    s << "}\n";
    return s.str();
  }

  int n_inputs() const {
    int n = src_ + 1;
    for (const auto& o : operands_) n = std::max(n, o.input + 1);
    for (int k : {mm_b_, lin_bias_, ln_w_, ln_b_}) n = std::max(n, k + 1);
    return n;
  }
};

}  // namespace

GenResult generate_opencl(const PromptView& p, const Plan& plan) {
  return OpenClGen(p, plan).run();
}

}  // namespace evk::sim
