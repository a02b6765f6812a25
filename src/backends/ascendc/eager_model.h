// The PyTorch-on-NPU eager baseline on the emulated 910B: each operator of the task's fx graph
// runs as its own kernel at its roofline (its bytes over HBM bandwidth, or its FLOPs over the
// cube's or the vector unit's peak, whichever is larger) plus one launch, with every
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
