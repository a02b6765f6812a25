// The offline coder's CUDA generator: reads the fx op list and the tensor list from the prompt
// and writes a kernel.cu for the CUDA ABI (device pointers, default stream). It covers the
// graphs a first CUDA draft usually meets: an elementwise chain over one input (with scalar
// or same-shape/trailing-broadcast tensor operands), a row operation over the last dimension
// (softmax, log_softmax, LayerNorm), a reduction over one dimension (sum, mean, amax, amin)
// and a product (matmul, mm, nn.Linear), each followed by an optional elementwise epilogue
// fused into its store. Anything else is reported as an op without a template, as the CPU
// generator does. Pitfalls from the shared table are written into the code where named.
// The graph reading is shared with the OpenCL generator (sim_device.h); this file holds the
// CUDA text and the checks where CUDA's templates differ.
#include <sstream>

#include "sim/sim_device.h"

namespace evk::sim {
namespace {

class CudaGen : public DeviceGen {
 public:
  CudaGen(const PromptView& p, const Plan& plan) : DeviceGen(p, plan) {
    src_ = 0;
    feat_.cuda = true;
  }

 private:
  const char* language() const override { return "CUDA"; }
  const char* math_suffix() const override { return "f"; }
  void on_elementwise(bool is_unary) override { uses_math_ = uses_math_ || is_unary; }

  // in[k] of a node's operand; CUDA tells a missing tensor line apart.
  const TensorLine* operand_input(const Py& a, const std::string& node) const {
    if (input_of(a) < 0) throw std::string(node + " (its operand is not a forward input)");
    if (const TensorLine* t = input(input_of(a))) return t;
    throw std::string(node + " (unknown input)");
  }

  const TensorLine* binary_operand(const FxOp& op, const std::string& t, int k,
                                   const Py& mine) override {
    if (k < 0) throw std::string(op.name + " (" + t + " of two computed values)");
    start_main_from(mine, op.name);
    if (const TensorLine* ot = input(k)) return ot;
    throw std::string(op.name + " (unknown operand)");
  }

  // Only trailing-dimension broadcasts (a bias per column, a scalar tensor).
  void check_broadcast(const FxOp& op, const TensorLine& ot, const Operand& o) const override {
    size_t r = ot.shape.size();
    for (size_t d = 0; d < r; ++d)
      if (ot.shape[r - 1 - d] != 1 && ot.shape[r - 1 - d] != out_shape_[out_shape_.size() - 1 - d])
        throw std::string(op.name + " (broadcast over leading dimensions)");
    if (o.numel != 1)
      for (size_t d = 0; d < r; ++d)
        if (ot.shape[r - 1 - d] == 1)
          throw std::string(op.name + " (broadcast with inner size-1 dims)");
  }

  void layer(const FxOp& op, const std::string& t, const Py& a0) override {
    if (t == "softmax" || t == "log_softmax")
      softmax(op, t, a0);
    else if (t == "layer_norm")
      layer_norm(op, a0);
    else if (t == "sum" || t == "mean" || t == "amax" || t == "amin")
      reduction(op, t, static_cast<int>(operand_input(a0, op.name)->shape.size()));
    else if (t == "matmul" || t == "mm")
      matmul(op, a0);
    else if (t == "linear")
      linear(op, a0);
    else
      throw std::string(op.name + " (" + t + ")");
  }

  void softmax(const FxOp& op, const std::string& t, const Py& a0) {
    const TensorLine* x = operand_input(a0, op.name);
    row_softmax(op, t, static_cast<int>(x->shape.size()), softmax_dim(op));
  }

  void layer_norm(const FxOp& op, const Py& a0) {
    operand_input(a0, op.name);
    if (op.kind != "call_module") throw std::string(op.name + " (functional layer_norm)");
    const TensorLine* w = tensor("param." + op.target + ".weight");
    const TensorLine* b = tensor("param." + op.target + ".bias");
    if (!w || !b || w->shape.size() != 1)
      throw std::string(op.name + " (LayerNorm without affine or over several dims)");
    row_layer_norm(op, *w, *b);
  }

  void matmul(const FxOp& op, const Py& a0) {
    const TensorLine* x = operand_input(a0, op.name);
    int kb = op.args.items.size() > 1 ? input_of(op.args.items[1]) : -2;
    if (kb < 0 || x->shape.size() != 2)
      throw std::string(op.name + " (a product that is not 2-D input @ input)");
    mm_b_ = kb;
    main_ = Main::kProduct;
  }

  void linear(const FxOp& op, const Py& a0) {
    const TensorLine* x = operand_input(a0, op.name);
    if (op.kind != "call_module" || x->shape.size() != 2)
      throw std::string(op.name + " (functional or batched linear)");
    const TensorLine* w = tensor("param." + op.target + ".weight");
    const TensorLine* b = tensor("param." + op.target + ".bias");
    if (!w) throw std::string(op.name + " (Linear weight missing)");
    linear_product(*w, b);
  }

  void set_features() override {
    feat_.uses_math = uses_math_ || main_ == Main::kRow;
    if (p_.refine) {
      // Refining moves on CUDA: omp (grid-stride loops), simd (float4), tile (shared-memory
      // tiles for products). The CPU-only moves (fuse, notemps, reorder) never apply.
      feat_.tileable = main_ == Main::kProduct;
      for (const auto& t : p_.tensors)
        if (t.output && main_ == Main::kProduct)
          for (int64_t d : t.shape) feat_.tile_tail_bites = feat_.tile_tail_bites || d % 32 != 0;
      return;
    }
    draft_features();
  }

  std::string operand_params() const { return operand_list(", const float* __restrict__ t"); }
  std::string operand_args() const {
    return operand_list(", static_cast<const float*>(in[", "].data)");
  }
  std::string threads(int normal) const {
    return pit("cuda_block_too_large") ? "2048" : std::to_string(normal);
  }
  // A 64 KiB static shared array: more than the 48 KiB a block may declare statically.
  std::string shared_overflow() const {
    if (!pit("cuda_shared_overflow")) return "";
    return "  __shared__ float stage[16384];  // the whole row at once\n"
           "  stage[threadIdx.x] = 0.0f;\n  __syncthreads();\n"
           "  if (stage[(threadIdx.x + 1) % blockDim.x] != 0.0f) return;\n";
  }
  std::string index_start() const {
    return pit("omp_collapse") ? "blockIdx.x * static_cast<int64_t>(blockDim.x)"
                               : "blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x";
  }

  std::string kernels() const {
    switch (main_) {
      case Main::kElementwise:
        return elementwise_kernels();
      case Main::kRow:
        return row_kernel();
      case Main::kReduce:
        return reduce_kernel();
      case Main::kProduct:
        return product_kernel();
    }
    return "";
  }

  // A grid-stride (omp move) or one-thread-per-element chain, with a float4 variant (simd).
  std::string elementwise_kernels() const {
    std::ostringstream s;
    std::string out_guard = pit("off_by_one_write") ? "n - 1" : "n";
    if (move("simd") && operands_.empty()) {
      s << "__global__ void fused4(const float4* __restrict__ x, float4* __restrict__ y, "
           "int64_t n4) {\n"
        << "  for (int64_t i = " << index_start() << "; i < n4;\n"
        << "       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {\n"
        << "    float4 v = x[i];\n"
        << epilogue4("    ") << "    y[i] = v;\n  }\n}\n\n";
    }
    s << "__global__ void fused(const float* __restrict__ x, float* __restrict__ y, int64_t "
         "from, int64_t n"
      << operand_params() << ") {\n";
    if (move("omp"))
      s << "  for (int64_t i = from + " << index_start() << "; i < " << out_guard
        << "; i += static_cast<int64_t>(gridDim.x) * blockDim.x)\n";
    else
      s << "  const int64_t i = from + " << index_start() << ";\n  if (i < " << out_guard << ")\n";
    s << "    y[i] = " << epilogue("x[i]", "i") << ";\n}\n";
    return s.str();
  }

  // One block per row: softmax, log_softmax or layer_norm over block-wide reductions.
  std::string row_kernel() const {
    std::ostringstream s;
    bool race = pit("parallel_reduction_race");
    s << "constexpr int kThreads = 256;\n\n"
      << "__device__ float block_reduce(float v, bool is_max, float* smem) {\n"
      << "  for (int o = 16; o > 0; o >>= 1) {\n"
      << "    const float w = __shfl_xor_sync(0xffffffffu, v, o);\n"
      << "    v = is_max ? fmaxf(v, w) : v + w;\n  }\n"
      << "  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;\n"
      << (race ? "" : "  __syncthreads();\n") << "  float r = smem[0];\n"
      << "  for (int w = 1; w < kThreads / 32; ++w) r = is_max ? fmaxf(r, smem[w]) : r + "
         "smem[w];\n"
      << "  __syncthreads();  // smem is reused by the next reduction\n"
      << "  return r;\n}\n\n";
    std::string params =
        row_op_ == "layer_norm" ? ", const float* __restrict__ w, const float* __restrict__ b" : "";
    s << "__global__ void row_op(const float* __restrict__ x, float* __restrict__ y, int64_t "
         "cols"
      << params << operand_params() << ") {\n"
      << "  __shared__ float smem[32];\n"
      << shared_overflow() << "  const float* row = x + blockIdx.x * cols;\n"
      << "  float* dst = y + blockIdx.x * cols;\n";
    std::string idx = "blockIdx.x * cols + j";
    if (row_op_ == "layer_norm") {
      s << "  float s = 0.0f;\n"
        << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) s += row[j];\n"
        << "  const float mean = block_reduce(s, false, smem) / static_cast<float>(cols);\n"
        << "  float q = 0.0f;\n"
        << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) q += (row[j] - mean) * "
           "(row[j] - mean);\n"
        << "  const float rstd = rsqrtf(block_reduce(q, false, smem) / "
           "static_cast<float>(cols) + "
        << flt(ln_eps_) << ");\n"
        << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads)\n"
        << "    dst[j] = " << epilogue("((row[j] - mean) * rstd * w[j] + b[j])", idx) << ";\n";
    } else {
      bool no_shift = pit("softmax_no_max_shift");
      if (no_shift) {
        s << "  const float m = 0.0f;\n";
      } else {
        s << "  float m = -INFINITY;\n"
          << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) m = fmaxf(m, row[j]);\n"
          << "  m = block_reduce(m, true, smem);\n";
      }
      s << "  float s = 0.0f;\n"
        << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) s += expf(row[j] - m);\n"
        << "  s = block_reduce(s, false, smem);\n";
      std::string v =
          row_op_ == "log_softmax" ? "(row[j] - m - logf(s))" : "(expf(row[j] - m) / s)";
      s << "  for (int64_t j = threadIdx.x; j < cols; j += kThreads) dst[j] = " << epilogue(v, idx)
        << ";\n";
    }
    s << "}\n";
    return s.str();
  }

  // One thread per output element, reducing one dimension.
  std::string reduce_kernel() const {
    std::ostringstream s;
    s << "__global__ void reduce_dim(const float* __restrict__ x, float* __restrict__ y, "
         "int64_t outer,\n"
      << "                           int64_t reduced, int64_t inner" << operand_params() << ") {\n"
      << shared_overflow() << "  const int64_t o = " << index_start() << ";\n"
      << "  if (o >= outer * inner) return;\n"
      << "  const float* p = x + (o / inner) * reduced * inner + o % inner;\n";
    std::string init = red_op_ == "amax" ? "-INFINITY" : red_op_ == "amin" ? "INFINITY" : "0.0f";
    std::string step = red_op_ == "amax"   ? "acc = fmaxf(acc, p[r * inner]);"
                       : red_op_ == "amin" ? "acc = fminf(acc, p[r * inner]);"
                                           : "acc += p[r * inner];";
    if (pit("no_init_reduction") && feat_.accum_final) {
      s << "  for (int64_t r = 0; r < reduced; ++r) y[o] += p[r * inner];\n";
      s << "  float acc = y[o];\n";
    } else {
      s << "  float acc = " << init << ";\n  for (int64_t r = 0; r < reduced; ++r) " << step
        << "\n";
    }
    if (red_op_ == "mean")
      s << "  acc /= static_cast<float>(" << (pit("mean_wrong_count") ? "inner" : "reduced")
        << ");\n";
    s << "  y[o] = " << epilogue("acc", "o") << ";\n}\n";
    return s.str();
  }

  // matmul / linear: one thread per output element, or shared-memory tiles (tile move).
  std::string product_kernel() const {
    std::ostringstream s;
    bool t_w = pit("transposed_weight");
    // B[k][n]: matmul reads b[k * n + col]; linear reads W[col][k] = w[col * K + k].
    auto b_at = [&](const std::string& kk, const std::string& col) {
      bool as_linear = linear_ != t_w;
      return as_linear ? "b[static_cast<int64_t>(" + col + ") * k + " + kk + "]"
                       : "b[static_cast<int64_t>(" + kk + ") * n + " + col + "]";
    };
    std::string bias = lin_bias_ >= 0 ? ", const float* __restrict__ bias" : "";
    std::string add_bias = lin_bias_ >= 0 ? " + bias[col]" : "";
    if (move("tile")) {
      bool tail = pit("tile_tail");
      s << "constexpr int kTile = 32;\n\n"
        << "__global__ void product(const float* __restrict__ a, const float* __restrict__ b,\n"
        << "                        float* __restrict__ c, int m, int n, int k" << bias
        << operand_params() << ") {\n"
        << "  __shared__ float as[kTile][kTile + 1];\n  __shared__ float bs[kTile][kTile + "
           "1];\n"
        << shared_overflow() << "  const int tx = threadIdx.x, ty = threadIdx.y;\n"
        << "  const int row0 = blockIdx.y * kTile, col = blockIdx.x * kTile + tx;\n"
        << "  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n"
        << "  for (int k0 = 0; k0 < k; k0 += kTile) {\n"
        << "    for (int r = ty; r < kTile; r += 8) {\n"
        << "      const int ar = row0 + r, ac = k0 + tx, br = k0 + r;\n";
      if (tail)
        s << "      as[r][tx] = a[static_cast<int64_t>(ar) * k + ac];\n"
          << "      bs[r][tx] = " << b_at("br", "col") << ";\n";
      else
        s << "      as[r][tx] = ar < m && ac < k ? a[static_cast<int64_t>(ar) * k + ac] : "
             "0.0f;\n"
          << "      bs[r][tx] = br < k && col < n ? " << b_at("br", "col") << " : 0.0f;\n";
      s << "    }\n    __syncthreads();\n"
        << "    for (int kk = 0; kk < kTile; ++kk)\n"
        << "      for (int i = 0; i < 4; ++i) acc[i] += as[ty + 8 * i][kk] * bs[kk][tx];\n"
        << "    __syncthreads();\n  }\n"
        << "  for (int i = 0; i < 4; ++i) {\n"
        << "    const int r = row0 + ty + 8 * i;\n"
        << "    if (r < m && col < n) c[static_cast<int64_t>(r) * n + col] = "
        << epilogue("(acc[i]" + add_bias + ")", "static_cast<int64_t>(r) * n + col") << ";\n"
        << "  }\n}\n";
    } else {
      s << "__global__ void product(const float* __restrict__ a, const float* __restrict__ b,\n"
        << "                        float* __restrict__ c, int m, int n, int k" << bias
        << operand_params() << ") {\n"
        << shared_overflow() << "  const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
        << "  const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
        << "  if (row >= m || col >= n) return;\n"
        << "  float acc = 0.0f;\n"
        << "  for (int kk = 0; kk < k; ++kk) acc += a[static_cast<int64_t>(row) * k + kk] * "
        << b_at("kk", "col") << ";\n"
        << "  c[static_cast<int64_t>(row) * n + col] = "
        << epilogue("(acc" + add_bias + ")", "static_cast<int64_t>(row) * n + col") << ";\n}\n";
    }
    return s.str();
  }

  std::string launch() const {
    std::ostringstream s;
    std::string x = "static_cast<const float*>(in[" + std::to_string(src_) + "].data)";
    std::string y = "static_cast<float*>(out[0].data)";
    if (pit("cuda_host_deref"))
      s << "  // Reject NaN inputs up front.\n"
        << "  if (" << x << "[0] != " << x << "[0]) return 3;\n";
    switch (main_) {
      case Main::kElementwise: {
        s << "  const int64_t n = evk_numel(&out[0]);\n  if (n == 0) return 0;\n";
        std::string grid = move("omp") ? "blocks < 4096 ? blocks : 4096" : "blocks";
        if (move("simd") && operands_.empty()) {
          s << "  const int64_t n4 = n / 4;  // cudaMalloc'd buffers are 256-byte aligned\n"
            << "  if (n4 > 0) {\n"
            << "    const int64_t blocks = (n4 + 255) / 256;\n"
            << "    fused4<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), " << threads(256)
            << ">>>(\n"
            << "        reinterpret_cast<const float4*>(" << x << "), reinterpret_cast<float4*>("
            << y << "), n4);\n"
            << "  }\n"
            << "  if (n > 4 * n4) fused<<<1, 4>>>(" << x << ", " << y << ", 4 * n4, n);\n";
        } else {
          s << "  const int64_t blocks = (n + 255) / 256;\n"
            << "  fused<<<static_cast<unsigned>(" << grid << "), " << threads(256) << ">>>(" << x
            << ", " << y << ", 0, n" << operand_args() << ");\n";
        }
        break;
      }
      case Main::kRow: {
        s << "  const int64_t cols = in[" << src_ << "].shape[in[" << src_ << "].ndim - 1];\n"
          << "  const int64_t rows = cols > 0 ? evk_numel(&in[" << src_ << "]) / cols : 0;\n"
          << "  if (rows == 0) return 0;\n"
          << "  row_op<<<static_cast<unsigned>(rows), " << threads(256) << ">>>(" << x << ", " << y
          << ", cols";
        if (row_op_ == "layer_norm")
          s << ", static_cast<const float*>(in[" << ln_w_
            << "].data), static_cast<const float*>(in[" << ln_b_ << "].data)";
        s << operand_args() << ");\n";
        break;
      }
      case Main::kReduce: {
        s << "  const evk_tensor& t = in[" << src_ << "];\n"
          << "  int64_t outer = 1, inner = 1;\n"
          << "  for (int d = 0; d < " << red_dim_ << "; ++d) outer *= t.shape[d];\n"
          << "  for (int d = " << red_dim_ + 1 << "; d < t.ndim; ++d) inner *= t.shape[d];\n"
          << "  const int64_t reduced = t.shape[" << red_dim_ << "], n = outer * inner;\n"
          << "  if (n == 0) return 0;\n"
          << "  reduce_dim<<<static_cast<unsigned>((n + 255) / 256), " << threads(256) << ">>>("
          << x << ", " << y << ", outer, reduced, inner" << operand_args() << ");\n";
        break;
      }
      case Main::kProduct: {
        s << "  const int m = static_cast<int>(in[" << src_ << "].shape[0]);\n"
          << "  const int k = static_cast<int>(in[" << src_ << "].shape[1]);\n"
          << "  const int n = static_cast<int>(out[0].shape[1]);\n"
          << "  if (m == 0 || n == 0) return 0;\n";
        if (move("tile"))
          s << "  dim3 block(32, " << (pit("cuda_block_too_large") ? "64" : "8")
            << "), grid((n + 31) / 32, (m + 31) / 32);\n";
        else
          s << "  dim3 block(16, " << (pit("cuda_block_too_large") ? "128" : "16")
            << "), grid((n + 15) / 16, (m + 15) / 16);\n";
        s << "  product<<<grid, block>>>(" << x << ", static_cast<const float*>(in[" << mm_b_
          << "].data), " << y << ", m, n, k";
        if (lin_bias_ >= 0) s << ", static_cast<const float*>(in[" << lin_bias_ << "].data)";
        s << operand_args() << ");\n";
        break;
      }
    }
    s << "  if (cudaGetLastError() != cudaSuccess) return 2;\n";
    return s.str();
  }

  std::string assemble() const {
    std::ostringstream s;
    for (const std::string& p : plan_.pitfalls) s << "// evk-pitfall: " << p << "\n";
    s << moves_line();
    s << "\n// Written by evokernel's offline coder (sim) from CUDA templates; not a language "
         "model.\n";
    if (!(pit("missing_header") && feat_.uses_math)) s << "#include \"evokernel/kernel_abi.h\"\n";
    s << "#include <cmath>\n#include <cstdint>\n\nnamespace {\n\n"
      << kernels() << "\n}  // namespace\n\n";
    if (pit("wrong_abi"))
      s << "extern \"C\" int evk_forward(evk_tensor* in, int32_t n_in, evk_tensor* out, int32_t "
           "n_out) {\n";
    else
      s << "extern \"C\" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, "
           "int32_t n_out) {\n";
    s << "  if (n_in < " << n_inputs() << " || n_out < 1) return 1;\n" << launch();
    if (!pit("missing_return")) s << "  return 0;\n";
    s << "}\n";
    return s.str();
  }

  int n_inputs() const {
    int n = 0;
    for (const auto& t : p_.tensors) n += !t.output;
    return n;
  }

  bool uses_math_ = false;
};

}  // namespace

GenResult generate_cuda(const PromptView& p, const Plan& plan) {
  return CudaGen(p, plan).run();
}

}  // namespace evk::sim
