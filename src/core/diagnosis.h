// What bounds a feasible kernel, from what the verifier measured: the bottleneck a refining
// step should attack. Held by the Verdict (core/verdict.h), made by verify/diagnose.h, shown
// in the refine prompt and the feedback, stored and exported with the verdict, and used by
// memory/ to retrieve the items that fixed the same bound.
//
// Invariant: `facts` hold only what was measured or modeled for this kernel (never a guess);
// what could not be measured is said as such ("counters unavailable: ..."). The runner's own
// figures (hardware counters) are claims: they may inform the facts, never the verdict.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace evk {

// The named bottleneck. Ascend C: a pipe of the AI Core (mte2 = copy in, mte3 = copy out,
// vector, cube, scalar), the launches' fixed cost, load imbalance across cores, or pipes that
// run one after another instead of overlapping (serialised). CPU/OpenCL/CUDA: memory or
// compute against the roofline. Unknown: no diagnosis could be made.
enum class Bound {
  Unknown,
  Mte2,
  Mte3,
  Vector,
  Cube,
  Scalar,
  Launch,
  Imbalance,
  Serialised,
  Memory,
  Compute
};

// "mte2", "mte3", "vector", "cube", "scalar", "launch", "imbalance", "serialised", "memory",
// "compute", "unknown": the names stored, shown, and used as retrieval tags ("bound_mte2").
const char* bound_name(Bound b);
std::optional<Bound> bound_from(std::string_view name);

struct Diagnosis {
  Bound bound = Bound::Unknown;
  std::string basis;               // "cost model", "roofline", "ptxas", ...: where it comes from
  std::vector<std::string> facts;  // one line each, most important first
  nlohmann::json figures = nlohmann::json::object();  // the numbers behind the facts

  bool empty() const { return bound == Bound::Unknown && facts.empty(); }
};

// "bound_<name>": how an item says which bound it addresses (memory/ tags; one word, so the
// similarity index sees one term).
std::string bound_tag(Bound b);

// A few lines a model can act on: "bound: mte2 (cost model)" then the facts.
std::string render_diagnosis(const Diagnosis& d);

nlohmann::json to_json(const Diagnosis& d);
// Lenient: a missing or damaged record reads as an empty diagnosis (bound unknown).
Diagnosis diagnosis_from_json(const nlohmann::json& j);

}  // namespace evk
