// Internals of the offline coder (sim): what it reads from a prompt, what it decides, and the
// code generator. Shared by src/llm/sim*.cpp only; the public contract is llm/sim.h.
//
// Invariant relied upon: everything here is a pure function of the prompt text and the random
// draws made from the seed, in a fixed order, so the same (prompt, seed) gives the same reply.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace evk::sim {

// A Python literal as torch.fx prints node arguments and module reprs: numbers, strings,
// True/False/None, tuples, lists, dicts, names (other nodes, torch.float32) and calls
// (`Conv2d(3, 16, kernel_size=(3, 3))`, `slice(None, 2, None)`).
struct Py {
  enum Kind { kNone, kBool, kInt, kFloat, kStr, kName, kTuple, kList, kDict, kCall } kind = kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;                                 // kStr text, kName identifier, kCall callee
  std::vector<Py> items;                         // kTuple/kList elements, kCall positional args
  std::vector<std::pair<std::string, Py>> kw;    // kDict entries, kCall keyword args

  bool is_num() const { return kind == kInt || kind == kFloat || kind == kBool; }
  double num() const { return kind == kFloat ? f : static_cast<double>(kind == kBool ? b : i); }
  bool is_seq() const { return kind == kTuple || kind == kList; }
  const Py* get(const std::string& key) const;  // kDict / kCall keyword lookup
};

// Parses one literal starting at text[pos]; advances pos past it. Throws std::runtime_error.
Py parse_py(const std::string& text, size_t& pos);
Py parse_py(const std::string& text);

// `- in[1] param.fc.weight: param F32 [64, 128]`
struct TensorLine {
  int index = 0;
  bool output = false;
  std::string name;   // in.0, param.fc.weight, out.0
  std::string role;   // input | param | output
  bool scalar = false;
  std::string dtype;  // F32, I64, ...
  std::vector<int64_t> shape;
};

// `- %NAME = KIND TARGET [MODULE] args=ARGS kwargs=KWARGS -> SHAPE`
struct FxOp {
  std::string name, kind, target;
  Py module;  // kCall parsed from the repr; kNone when absent or unparseable
  bool has_module = false;
  Py args, kwargs;
  bool shape_known = false;
  std::vector<int64_t> shape;
};

// Everything the sim takes from a prompt.
struct PromptView {
  // From "for the `NAME` backend" in the prompt's first lines; empty when the prompt names
  // none (then the sim writes no kernel rather than guess one).
  std::string backend;
  bool refine = false;        // "## Start point" present
  bool has_ops = false;       // an fx op list was found
  bool not_traceable = false; // the op list says "(not traceable)"
  std::vector<TensorLine> tensors;
  std::vector<FxOp> ops;
  std::string context;        // memory + attempts (+ children) text: where pitfall markers count
  std::string best_practices; // text of best_practice memory items (move keywords count)
  std::string start_code;     // refine: the start point's code block
  std::string diagnosis;      // refine: the "Diagnosis of the start point" section
};

PromptView parse_prompt(const std::string& prompt);

// Deterministic draws (splitmix64); no std distributions, so replies are portable.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next();
  double uniform();  // [0, 1)
  bool chance(double p) { return uniform() < p; }
  size_t pick(size_t n) { return static_cast<size_t>(uniform() * static_cast<double>(n)) % n; }

 private:
  uint64_t s_;
};

// What the generator found in the graph: which pitfalls and moves can apply at all.
struct Features {
  bool uses_math = false, uses_temps = false;
  bool final_copy = false;        // a final write loop into out[k] exists
  bool accum_final = false;       // a reduction/product feeds an output directly
  bool has_product = false;       // matmul / linear / conv weights
  bool has_padding = false;       // conv or pool with padding > 0
  bool has_softmax = false;       // softmax / log_softmax / logsumexp / cross_entropy
  bool has_i64 = false;           // an int64 tensor is read or written
  bool has_broadcast = false;     // a binary op broadcasts a smaller tensor
  bool has_reduction = false;
  bool has_mean = false;          // a mean whose count differs from the last dim
  int ew_ops = 0;                 // elementwise ops (fusion candidates)
  bool reorderable = false;       // a loop nest with a better order exists
  bool tileable = false;          // a matmul large enough to block
  bool tile_tail_bites = false;   // set per tile size by the generator (dims not divisible)
  std::vector<int64_t> matmul_dims;  // M, N, K of every product, for the tile tail check
  bool cuda = false;              // written by the CUDA generator (its own pitfall rows)
  bool opencl = false;            // written by the OpenCL generator (its own pitfall rows)
  bool ascendc = false;           // written by the Ascend C generator (its own pitfall rows)
};

// The decisions the generator follows.
struct Plan {
  std::set<std::string> pitfalls;                     // names from the pitfall table
  std::vector<std::pair<std::string, int>> moves;     // (move, parameter) in order applied
  bool has_move(const std::string& m) const;
  int move_param(const std::string& m) const;
};

struct GenResult {
  bool ok = true;               // false: an op had no template (code calls an undeclared helper)
  std::string code;
  std::vector<std::string> unknown_ops;
  Features features;
};

// Generates the kernel for the graph in `p` following `plan`. Never throws for odd graphs:
// what it cannot template becomes a call to an undeclared helper, as a weak model writes.
GenResult generate(const PromptView& p, const Plan& plan);

// The generator for p.backend: generate() for cpu; other backends each have their own
// generator in sim_<backend>.cpp, a row of sim.cpp's kGenerators.
GenResult generate_for_backend(const PromptView& p, const Plan& plan);
// sim_cuda.cpp: CUDA kernels for elementwise chains, row reductions (softmax, log_softmax,
// layer_norm), reductions over one dimension and matmul/linear, each with an elementwise
// epilogue.
GenResult generate_cuda(const PromptView& p, const Plan& plan);
// sim_opencl.cpp: OpenCL kernels (R"evk_cl( program + evk_cl host code) for the same graphs.
GenResult generate_opencl(const PromptView& p, const Plan& plan);
// sim_ascendc.cpp: Ascend C kernels (kernel_operator.h, TPipe/TQue pipelines, the Matmul API)
// for elementwise chains, row softmax/log_softmax and matmul/linear with an epilogue.
GenResult generate_ascendc(const PromptView& p, const Plan& plan);

// ---- data tables (sim_pitfalls.cpp, sim_moves.cpp) ----

struct PitfallRow {
  const char* name;
  double base_probability;
  const char* stage;       // "draft" (cold-start mistake) or the move it belongs to
  const char* mistake;     // what the code gets wrong (documentation and reply text)
  bool (*applies)(const Features&);
};
const std::vector<PitfallRow>& pitfall_table();

struct MoveRow {
  const char* name;
  double base_weight;
  std::vector<const char*> keywords;  // words in best-practice items that name the move
  const char* change;                 // what it does to the code
  bool (*applies)(const Features&);
  // Text in the start point's diagnosis that calls for the move: its bound line
  // ("bound: serialised") or a fact ("one buffer", "AI Cores").
  std::vector<const char*> diagnosis;
};
const std::vector<MoveRow>& move_table();

// How much a marker in the context scales a pitfall, and a best practice scales a move.
inline constexpr double kMarkerFactor = 0.1;
inline constexpr double kBestPracticeBoost = 2.0;  // weight *= 1 + boost * mentions (capped)
// A model reads the diagnosis and attacks the bound it names first: a move the diagnosis calls
// for weighs 1 + kDiagnosisBoost per hit (at most 2 hits).
inline constexpr double kDiagnosisBoost = 4.0;

}  // namespace evk::sim
