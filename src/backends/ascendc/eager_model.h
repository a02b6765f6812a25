// The PyTorch-on-NPU eager baseline on the emulated 910B: each operator of the task's fx graph
// runs as the kernel a vendor library would run for it, in turn, with every intermediate in
// global memory. That kernel is the reference library's (evk-ascendc-eager,
// runner/ascendc/eager/library.h: straightforward Ascend C kernels with the library's generic
// tiling, run on the same emulator as a candidate, cost only); an operator the library has no
// kernel for (convolution, pooling, ...) is charged its roofline at the library's stated
// efficiencies (its bytes at the HBM bandwidth, or its FLOPs over 93% of the peak, as torch_npu
// measured: npu_constants.h) plus one launch, and the result says so. View operators (view,
// reshape, getitem...) cost nothing. When the graph could not be traced, the task's total bytes and
// FLOPs stand for one roofline operator.
#pragma once
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace evk {

struct EagerCost {
  double ms = 0;
  int library_ops = 0;                // operators costed by the reference library's kernels
  std::vector<std::string> fallback;  // "conv2d: no library kernel for conv2d", one per op
  // "library kernels", "library kernels; roofline for conv2d", or "roofline" (nothing ran).
  std::string basis() const;
  nlohmann::json to_json() const;
};

// `r.meta["fx_ops"]` is the oracle's op list (name, kind, op, target, shape, args, kwargs,
// flops), `r.abi` gives parameter shapes. `eager_exe` is evk-ascendc-eager; when it is missing
// or fails, every operator falls back to its roofline with the reason. Results are cached per
// operator by (op, shapes, scalars, the program's build id): in this process, and in
// `ascendc_eager.json` beside the reference's meta.json when it has one.
EagerCost modeled_eager(const Reference& r, const std::filesystem::path& eager_exe);

// The library's request for one fx operator, or null when it is a view or not an operator
// (exposed for tests): {"op", "in": [shapes], "out": shape, "scalars": [numbers]}.
nlohmann::json library_request(const nlohmann::json& fx_op,
                               const std::map<std::string, nlohmann::json>& shapes,
                               const Reference& r);

}  // namespace evk
