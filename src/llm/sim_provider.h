// The `sim` model as a Provider (src/sim/ is the simulator itself, which knows nothing of
// providers): answers the last user message; seed = options.seed mixed with a hash of that
// message; usage is a word-count estimate; simulated() is true; name() is "sim".
#pragma once
#include <memory>

#include "core/config.h"
#include "llm/provider.h"

namespace evk {

std::unique_ptr<Provider> make_sim_provider(const Config& config);

}  // namespace evk
