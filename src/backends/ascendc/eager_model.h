// The PyTorch-on-NPU eager baseline on the emulated 910B: each operator of the task's fx graph
// runs as its own library kernel at its roofline scaled by the library's efficiencies (its
// bytes over 80% of the HBM bandwidth, or its FLOPs over 70% of the cube's or the vector
// unit's peak, whichever is larger: npu_constants.h) plus one launch, with every
// intermediate in global memory. View operators (view, reshape, getitem...) cost nothing.
// When the graph could not be traced, the task's total bytes and FLOPs stand for one operator.
#pragma once
#include <nlohmann/json.hpp>

#include "tasks/task.h"

namespace evk {

// Milliseconds; `r.meta["fx_ops"]` is the oracle's op list (name, kind, op, target, shape,
// args, flops), `r.abi` gives parameter sizes.
double modeled_eager_ms(const Reference& r);

}  // namespace evk
