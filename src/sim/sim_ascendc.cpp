// The offline coder's Ascend C generator: reads the fx op list and the tensor list from the
// prompt and writes a kernel.cpp for the ascendc backend (kernel_operator.h, an emulated 910B
// AI Core). It covers an elementwise chain over one input (scalar operands only), a row
// softmax/log_softmax over the last dimension, and a 2-D product (matmul, nn.Linear) through
// the high-level Matmul API, each with an elementwise epilogue. A cold-start draft is what a
// model that has barely seen Ascend C writes from the guide: one buffer per queue, 8 blocks,
// 1024-element tiles and the epilogue as a scalar GetValue/SetValue loop. Refining moves
// (shared names, Ascend C meanings): double_buffer (two buffers per queue), omp (all 24 AI
// Cores), tile (8192-element tiles), simd (the epilogue as vector API calls, where every op
// of the chain has one). Pitfalls from the shared table are written into the code.
#include <sstream>

#include "sim/sim_device.h"

namespace evk::sim {
namespace {

class AscendcGen : public DeviceGen {
 public:
  AscendcGen(const PromptView& p, const Plan& plan) : DeviceGen(p, plan) {
    src_ = 0;
    feat_.ascendc = true;
  }

 private:
  const char* language() const override { return "Ascend C"; }
  const char* math_suffix() const override { return "f"; }
  void on_elementwise(bool) override {}

  const TensorLine* binary_operand(const FxOp& op, const std::string& t, int, const Py&) override {
    throw std::string(op.name + " (" + t + " with a tensor operand)");
  }
  void check_broadcast(const FxOp&, const TensorLine&, const Operand&) const override {}

  void layer(const FxOp& op, const std::string& t, const Py& a0) override {
    const TensorLine* x = input_tensor(a0, op.name);
    if (t == "softmax" || t == "log_softmax") {
      row_softmax(op, t, static_cast<int>(x->shape.size()), softmax_dim(op));
      return;
    }
    if ((t == "matmul" || t == "mm") && x->shape.size() == 2) {
      int kb = op.args.items.size() > 1 ? input_of(op.args.items[1]) : -2;
      if (kb < 0) throw std::string(op.name + " (a product that is not input @ input)");
      mm_b_ = kb;
      main_ = Main::kProduct;
      return;
    }
    if (t == "linear" && op.kind == "call_module" && x->shape.size() == 2) {
      const TensorLine* w = tensor("param." + op.target + ".weight");
      const TensorLine* b = tensor("param." + op.target + ".bias");
      if (!w) throw std::string(op.name + " (Linear weight missing)");
      linear_product(*w, b);
      return;
    }
    throw std::string(op.name + " (" + t + ")");
  }

  void set_features() override {
    feat_.final_copy = main_ == Main::kElementwise;
    feat_.has_product = main_ == Main::kProduct;
    feat_.has_softmax = main_ == Main::kRow;
    feat_.tileable = main_ == Main::kElementwise;
    feat_.ew_ops = static_cast<int>(chain_ops_.size());
    feat_.uses_math = !chain_ops_.empty() || row_op_ == "log_softmax";
  }

  // ---- the epilogue on a LocalTensor<float> `y` of `n` elements, `tmp` a scratch tensor ----

  // One vector call sequence per op, or nullopt when an op has none here.
  std::optional<std::string> vector_op(const ChainOp& c) const {
    std::string k = flt(c.c);
    auto sig = [](const std::string& scale) {  // y = 1 / (1 + exp(scale * y))
      return "    Muls(y, y, " + scale +
             ", n);\n    Exp(y, y, n);\n    Adds(y, y, 1.0f, n);\n"
             "    Reciprocal(y, y, n);\n";
    };
    if (c.scalar) {
      if (c.t == "add") return "    Adds(y, y, " + k + ", n);\n";
      if (c.t == "mul") return "    Muls(y, y, " + k + ", n);\n";
      if (c.t == "sub")
        return c.left ? "    Adds(y, y, " + flt(-c.c) + ", n);\n"
                      : "    Muls(y, y, -1.0f, n);\n    Adds(y, y, " + k + ", n);\n";
      if (c.t == "truediv" || c.t == "div")
        return c.left ? "    Muls(y, y, " + flt(1.0 / c.c) + ", n);\n"
                      : "    Reciprocal(y, y, n);\n    Muls(y, y, " + k + ", n);\n";
      return std::nullopt;
    }
    if (c.t == "relu") return "    Relu(y, y, n);\n";
    if (c.t == "relu6") return "    Relu(y, y, n);\n    Mins(y, y, 6.0f, n);\n";
    if (c.t == "exp") return "    Exp(y, y, n);\n";
    if (c.t == "abs") return "    Abs(y, y, n);\n";
    if (c.t == "sqrt") return "    Sqrt(y, y, n);\n";
    if (c.t == "neg") return "    Muls(y, y, -1.0f, n);\n";
    if (c.t == "sigmoid") return sig("-1.0f");
    if (c.t == "tanh")
      return sig("-2.0f") + "    Muls(y, y, 2.0f, n);\n    Adds(y, y, -1.0f, n);\n";
    if (c.t == "hardtanh")
      return "    Maxs(y, y, " + flt(kwnum(*c.op, "min_val", -1.0)) + ", n);\n    Mins(y, y, " +
             flt(kwnum(*c.op, "max_val", 1.0)) + ", n);\n";
    if (c.t == "hardsigmoid")
      return "    Muls(y, y, 0.16666667f, n);\n    Adds(y, y, 0.5f, n);\n    Maxs(y, y, 0.0f, n);\n"
             "    Mins(y, y, 1.0f, n);\n";
    if (c.t == "leaky_relu") {
      double s = kwnum(*c.op, "negative_slope", 0.01);
      if (s > 1) return std::nullopt;
      return "    Muls(tmp, y, " + flt(s) + ", n);\n    Max(y, y, tmp, n);\n";
    }
    if (c.t == "silu")
      return "    Muls(tmp, y, -1.0f, n);\n    Exp(tmp, tmp, n);\n    Adds(tmp, tmp, 1.0f, n);\n"
             "    Reciprocal(tmp, tmp, n);\n    Mul(y, y, tmp, n);\n";
    return std::nullopt;
  }

  std::string epilogue_calls() const {
    if (chain_ops_.empty()) return "";
    if (move("simd")) {
      std::string s;
      bool all = true;
      for (const auto& c : chain_ops_) {
        auto v = vector_op(c);
        all = all && v.has_value();
        if (v) s += *v;
      }
      if (all) return s;
    }
    return "    for (int32_t i = 0; i < n; ++i) {  // the epilogue on the scalar unit\n"
           "      float v = y.GetValue(i);\n      y.SetValue(i, " +
           epilogue("v", "i") + ");\n    }\n";
  }

  // The static helper every kernel calls after its main computation.
  std::string epilogue_fn() const {
    return "__aicore__ inline void Epilogue(const LocalTensor<float>& y, const LocalTensor<float>& "
           "tmp, "
           "int32_t n) {\n" +
           epilogue_calls() + "  (void)tmp;\n  (void)n;\n}\n\n";
  }

  std::string buffers() const { return move("double_buffer") ? "2" : "1"; }
  std::string cores() const { return move("omp") ? "24" : "8"; }
  std::string tile() const { return move("tile") ? "8192" : "1024"; }

  std::string elementwise() const {
    std::ostringstream s;
    bool pad = !pit("ascendc_unaligned_copy");
    std::string loop = pit("ascendc_tail_dropped") ? "off + t.tile <= len" : "off < len";
    s << "struct Tiling {\n  uint32_t total, perCore, tile;\n};\n\n"
      << "extern \"C\" __global__ __aicore__ void fused_kernel(GM_ADDR x, GM_ADDR y, Tiling t) {\n"
      << "  TPipe pipe;\n  TQue<TPosition::VECIN, BUFFER_NUM> inQ;\n"
      << "  TQue<TPosition::VECOUT, BUFFER_NUM> outQ;\n  TBuf<TPosition::VECCALC> tmpBuf;\n"
      << "  GlobalTensor<float> xGm, yGm;\n"
      << "  uint32_t start = t.perCore * "
      << (pit("ascendc_block_offset") ? "(GetBlockIdx() + 1)" : "GetBlockIdx()") << ";\n"
      << "  if (start >= t.total) return;\n"
      << "  uint32_t len = t.total - start < t.perCore ? t.total - start : t.perCore;\n"
      << (pit("ascendc_block_offset") ? "  len = t.perCore;\n" : "")
      << "  xGm.SetGlobalBuffer((__gm__ float*)x + start, len);\n"
      << "  yGm.SetGlobalBuffer((__gm__ float*)y + start, len);\n"
      << "  pipe.InitBuffer(inQ, BUFFER_NUM, t.tile * sizeof(float));\n"
      << "  pipe.InitBuffer(outQ, BUFFER_NUM, t.tile * sizeof(float));\n"
      << "  pipe.InitBuffer(tmpBuf, t.tile * sizeof(float));\n"
      << "  for (uint32_t off = 0; " << loop << "; off += t.tile) {\n"
      << "    uint32_t n = len - off < t.tile ? len - off : t.tile;\n"
      << "    int32_t padded = static_cast<int32_t>((n + 7) / 8 * 8);\n"
      << "    LocalTensor<float> xl = inQ.AllocTensor<float>();\n";
    if (pad)
      s << "    if (n % 8 == 0) DataCopy(xl, xGm[off], n);\n"
        << "    else DataCopyPad(xl, xGm[off], DataCopyExtParams(1, n * 4, 0, 0, 0), "
           "DataCopyPadExtParams<float>(false, 0, 0, 0.0f));\n";
    else
      s << "    DataCopy(xl, xGm[off], n);\n";
    s << "    inQ.EnQue(xl);\n    xl = inQ.DeQue<float>();\n"
      << "    LocalTensor<float> yl = outQ.AllocTensor<float>();\n"
      << "    DataCopy(yl, xl, padded);\n"
      << "    Epilogue(yl, tmpBuf.Get<float>(), padded);\n"
      << (pit("ascendc_missing_free") ? "" : "    inQ.FreeTensor(xl);\n")
      << "    outQ.EnQue(yl);\n    yl = outQ.DeQue<float>();\n";
    if (pad)
      s << "    if (n % 8 == 0) DataCopy(yGm[off], yl, n);\n"
        << "    else DataCopyPad(yGm[off], yl, DataCopyExtParams(1, n * 4, 0, 0, 0));\n";
    else
      s << "    DataCopy(yGm[off], yl, n);\n";
    s << "    outQ.FreeTensor(yl);\n  }\n}\n\n";
    std::string round = pad ? " + 7) / 8 * 8" : ")";
    s << "extern \"C\" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, "
         "int32_t n_out) {\n"
      << "  if (n_in < 1 || n_out < 1) return 1;\n  Tiling t;\n"
      << "  t.total = static_cast<uint32_t>(evk_numel(&out[0]));\n"
      << "  if (t.total == 0) return 0;\n  uint32_t blocks = " << cores() << ";\n"
      << "  t.perCore = ((t.total + blocks - 1) / blocks" << round << ";\n"
      << "  blocks = (t.total + t.perCore - 1) / t.perCore;\n"
      << (pit("ascendc_ub_overflow")
              ? std::string("  t.tile = 24576;  // 96 KB tiles: fewer copies\n")
              : "  t.tile = t.perCore < " + tile() + " ? (t.perCore + 7) / 8 * 8 : " + tile() +
                    ";\n")
      << "  ACLRT_LAUNCH_KERNEL(fused_kernel)(blocks, nullptr, (GM_ADDR)in[" << src_
      << "].data, (GM_ADDR)out[0].data, t);\n";
    return s.str();
  }

  std::string row() const {
    std::ostringstream s;
    bool no_shift = pit("softmax_no_max_shift");
    s << "struct Tiling {\n  uint32_t rows, cols, rowsPerCore;\n};\n\n"
      << "extern \"C\" __global__ __aicore__ void row_kernel(GM_ADDR x, GM_ADDR y, Tiling t) {\n"
      << "  TPipe pipe;\n  TQue<TPosition::VECIN, BUFFER_NUM> inQ;\n"
      << "  TQue<TPosition::VECOUT, BUFFER_NUM> outQ;\n  TBuf<TPosition::VECCALC> work, red, "
         "tmpBuf;\n"
      << "  GlobalTensor<float> xGm, yGm;\n"
      << "  uint32_t first = t.rowsPerCore * "
      << (pit("ascendc_block_offset") ? "(GetBlockIdx() + 1)" : "GetBlockIdx()") << ";\n"
      << "  if (first >= t.rows) return;\n"
      << "  uint32_t rows = t.rows - first < t.rowsPerCore ? t.rows - first : t.rowsPerCore;\n"
      << (pit("ascendc_block_offset") ? "  rows = t.rowsPerCore;\n" : "")
      << "  xGm.SetGlobalBuffer((__gm__ float*)x + first * t.cols, rows * t.cols);\n"
      << "  yGm.SetGlobalBuffer((__gm__ float*)y + first * t.cols, rows * t.cols);\n"
      << "  pipe.InitBuffer(inQ, BUFFER_NUM, t.cols * sizeof(float));\n"
      << "  pipe.InitBuffer(outQ, BUFFER_NUM, t.cols * sizeof(float));\n"
      << "  pipe.InitBuffer(work, t.cols * sizeof(float));\n  pipe.InitBuffer(red, 32);\n"
      << "  pipe.InitBuffer(tmpBuf, t.cols * sizeof(float));\n"
      << "  int32_t n = static_cast<int32_t>(t.cols);\n"
      << "  for (uint32_t r = 0; r < rows; ++r) {\n"
      << "    LocalTensor<float> xl = inQ.AllocTensor<float>();\n"
      << "    if (t.cols % 8 == 0) DataCopy(xl, xGm[r * t.cols], t.cols);\n"
      << "    else DataCopyPad(xl, xGm[r * t.cols], DataCopyExtParams(1, t.cols * 4, 0, 0, 0), "
         "DataCopyPadExtParams<float>(false, 0, 0, 0.0f));\n"
      << "    inQ.EnQue(xl);\n    xl = inQ.DeQue<float>();\n"
      << "    LocalTensor<float> yl = outQ.AllocTensor<float>();\n"
      << "    LocalTensor<float> w = work.Get<float>(), m = red.Get<float>();\n";
    if (no_shift) {
      s << "    float mx = 0.0f;\n";
    } else {
      s << "    ReduceMax(m, xl, w, n);\n    float mx = m.GetValue(0);\n";
    }
    s << "    Adds(yl, xl, -mx, n);\n    Exp(yl, yl, n);\n    ReduceSum(m, yl, w, n);\n"
      << "    float sum = m.GetValue(0);\n";
    if (row_op_ == "log_softmax")
      s << "    Adds(yl, xl, -(mx + logf(sum)), n);\n";
    else
      s << "    Muls(yl, yl, 1.0f / sum, n);\n";
    s << "    Epilogue(yl, tmpBuf.Get<float>(), n);\n"
      << (pit("ascendc_missing_free") ? "" : "    inQ.FreeTensor(xl);\n")
      << "    outQ.EnQue(yl);\n    yl = outQ.DeQue<float>();\n"
      << "    if (t.cols % 8 == 0) DataCopy(yGm[r * t.cols], yl, t.cols);\n"
      << "    else DataCopyPad(yGm[r * t.cols], yl, DataCopyExtParams(1, t.cols * 4, 0, 0, 0));\n"
      << "    outQ.FreeTensor(yl);\n  }\n}\n\n";
    s << "extern \"C\" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, "
         "int32_t n_out) {\n"
      << "  if (n_in < 1 || n_out < 1) return 1;\n  Tiling t;\n"
      << "  t.cols = static_cast<uint32_t>(in[" << src_ << "].shape[in[" << src_
      << "].ndim - 1]);\n"
      << "  t.rows = static_cast<uint32_t>(evk_numel(&in[" << src_ << "]) / t.cols);\n"
      << "  if (t.rows == 0) return 0;\n"
      << "  // whole rows in the UB: the in and out queues, the work and scratch rows, the result\n"
      << "  if (t.cols * sizeof(float) * (2 * BUFFER_NUM + 2) + 32 > 192 * 1024) return 2;\n"
      << "  uint32_t blocks = t.rows < " << cores() << " ? t.rows : " << cores() << ";\n"
      << "  t.rowsPerCore = (t.rows + blocks - 1) / blocks;\n"
      << "  blocks = (t.rows + t.rowsPerCore - 1) / t.rowsPerCore;\n"
      << "  ACLRT_LAUNCH_KERNEL(row_kernel)(blocks, nullptr, (GM_ADDR)in[" << src_
      << "].data, (GM_ADDR)out[0].data, t);\n";
    return s.str();
  }

  std::string product() const {
    std::ostringstream s;
    bool trans = linear_ != pit("transposed_weight");
    bool bias = lin_bias_ >= 0;
    s << "using AType = MatmulType<TPosition::GM, CubeFormat::ND, float>;\n"
      << "using BType = MatmulType<TPosition::GM, CubeFormat::ND, float" << (trans ? ", true" : "")
      << ">;\nusing CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;\n\n"
      << "extern \"C\" __global__ __aicore__ void product_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR "
         "bias, "
         "GM_ADDR c, TCubeTiling tiling) {\n"
      << "  TPipe pipe;\n  GlobalTensor<float> aGm, bGm, biasGm, cGm;\n"
      << "  aGm.SetGlobalBuffer((__gm__ float*)a, (uint64_t)tiling.M * tiling.Ka);\n"
      << "  bGm.SetGlobalBuffer((__gm__ float*)b, (uint64_t)tiling.Kb * tiling.N);\n"
      << "  cGm.SetGlobalBuffer((__gm__ float*)c, (uint64_t)tiling.M * tiling.N);\n"
      << "  int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;\n"
      << "  int32_t m0 = (GetBlockIdx() % mBlocks) * tiling.singleCoreM;\n"
      << "  int32_t n0 = (GetBlockIdx() / mBlocks) * tiling.singleCoreN;\n"
      << "  if (m0 >= tiling.M || n0 >= tiling.N) return;\n"
      << "  int32_t tm = tiling.M - m0 < tiling.singleCoreM ? tiling.M - m0 : tiling.singleCoreM;\n"
      << "  int32_t tn = tiling.N - n0 < tiling.singleCoreN ? tiling.N - n0 : tiling.singleCoreN;\n"
      << "  Matmul<AType, BType, CType> mm;\n"
      << "  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);\n"
      << "  mm.SetTensorA(aGm[(uint64_t)m0 * tiling.Ka]);\n"
      << "  mm.SetTensorB(bGm[" << (trans ? "(uint64_t)n0 * tiling.Kb" : "n0") << "]"
      << (trans ? ", true" : "") << ");\n";
    if (bias)
      s << "  biasGm.SetGlobalBuffer((__gm__ float*)bias, tiling.N);\n  mm.SetBias(biasGm[n0]);\n";
    s << "  mm.SetTail(tm, tn);\n  mm.IterateAll(cGm[(uint64_t)m0 * tiling.N + n0]);\n  "
         "mm.End();\n";
    if (!chain_ops_.empty()) {
      s << "  TQue<TPosition::VECIN, BUFFER_NUM> inQ;\n  TBuf<TPosition::VECCALC> tmpBuf;\n"
        << "  pipe.InitBuffer(inQ, BUFFER_NUM, tiling.singleCoreN * sizeof(float));\n"
        << "  pipe.InitBuffer(tmpBuf, tiling.singleCoreN * sizeof(float));\n"
        << "  for (int32_t r = 0; r < tm; ++r) {  // the epilogue, row by row over this block\n"
        << "    uint64_t at = (uint64_t)(m0 + r) * tiling.N + n0;\n"
        << "    LocalTensor<float> v = inQ.AllocTensor<float>();\n"
        << "    if (tn % 8 == 0) DataCopy(v, cGm[at], tn);\n"
        << "    else DataCopyPad(v, cGm[at], DataCopyExtParams(1, tn * 4, 0, 0, 0), "
           "DataCopyPadExtParams<float>(false, 0, 0, 0.0f));\n"
        << "    inQ.EnQue(v);\n    v = inQ.DeQue<float>();\n"
        << "    Epilogue(v, tmpBuf.Get<float>(), tn);\n"
        << "    if (tn % 8 == 0) DataCopy(cGm[at], v, tn);\n"
        << "    else DataCopyPad(cGm[at], v, DataCopyExtParams(1, tn * 4, 0, 0, 0));\n"
        << "    inQ.FreeTensor(v);\n  }\n";
    }
    s << "}\n\n";
    s << "extern \"C\" int evk_forward(const evk_tensor* in, int32_t n_in, evk_tensor* out, "
         "int32_t n_out) {\n"
      << "  if (n_in < 2 || n_out < 1) return 1;\n"
      << "  int32_t M = (int32_t)in[" << src_ << "].shape[0], K = (int32_t)in[" << src_
      << "].shape[1];\n"
      << "  int32_t N = (int32_t)out[0].shape[1];\n  if (M == 0 || N == 0) return 0;\n"
      << "  matmul_tiling::MultiCoreMatmulTiling tiler;\n  tiler.SetDim(" << cores() << ");\n"
      << "  tiler.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, "
         "matmul_tiling::DataType::DT_FLOAT);\n"
      << "  tiler.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, "
         "matmul_tiling::DataType::DT_FLOAT"
      << (trans ? ", true" : "") << ");\n"
      << "  tiler.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, "
         "matmul_tiling::DataType::DT_FLOAT);\n"
      << "  tiler.SetShape(M, N, K);\n  tiler.SetOrgShape(M, N, K);\n  tiler.SetBias("
      << (bias ? "true" : "false") << ");\n"
      << "  TCubeTiling tiling;\n  if (tiler.GetTiling(tiling) == -1) return 3;\n"
      << "  ACLRT_LAUNCH_KERNEL(product_kernel)(tiling.usedCoreNum, nullptr, (GM_ADDR)in[" << src_
      << "].data, (GM_ADDR)in[" << mm_b_ << "].data, (GM_ADDR)"
      << (bias ? "in[" + std::to_string(lin_bias_) + "].data" : "nullptr")
      << ", (GM_ADDR)out[0].data, tiling);\n";
    return s.str();
  }

  std::string assemble() const override {
    std::ostringstream s;
    for (const std::string& p : plan_.pitfalls) s << "// evk-pitfall: " << p << "\n";
    s << moves_line();
    s << "\n// Written by evokernel's offline coder (sim) from Ascend C templates; not a language "
         "model.\n";
    if (!pit("missing_header")) s << "#include <cmath>\n";
    s << "#include \"kernel_operator.h\"\n";
    if (main_ == Main::kProduct)
      s << "#include \"lib/matmul_intf.h\"\n#include \"tiling/tiling_api.h\"\n";
    s << "using namespace AscendC;\n\nconstexpr int32_t BUFFER_NUM = " << buffers() << ";\n\n"
      << epilogue_fn();
    if (main_ == Main::kElementwise)
      s << elementwise();
    else if (main_ == Main::kRow)
      s << row();
    else
      s << product();
    if (!pit("missing_return")) s << "  return 0;\n";
    s << "}\n";
    std::string code = s.str();
    if (pit("wrong_abi")) {  // the ABI header declares `const evk_tensor* in`
      std::string from = "evk_forward(const evk_tensor* in", to = "evk_forward(evk_tensor* in";
      code.replace(code.find(from), from.size(), to);
    }
    return code;
  }
};

}  // namespace

GenResult generate_ascendc(const PromptView& p, const Plan& plan) {
  return AscendcGen(p, plan).run();
}

}  // namespace evk::sim
