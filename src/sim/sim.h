// The offline coder (`--model sim`, docs/architecture.md §8): a stochastic program generator that
// reads only the rendered prompt text (the same text a real model gets) and answers with real
// code for the prompt's backend (the "`NAME` backend" its first lines name: C++ with OpenMP for
// cpu, OpenCL, CUDA, Ascend C), built from per-operator templates. It is a labelled simulator,
// never presented as a language model: its replies and code say so.
//
// Contract relied upon by callers and tests:
//   - sim_reply is pure: the same prompt and seed give the same reply, byte for byte. It opens
//     no file, reads no environment and touches no database.
//   - Draft prompts (with "## Your earlier attempts on this task") get a first kernel with
//     cold-start pitfalls drawn from the pitfall table; code that fell into pitfall NAME
//     carries `// evk-pitfall: NAME` on its first lines. When the prompt's memory or attempts
//     contain that marker, the pitfall's probability is multiplied by 0.1.
//   - Refine prompts (with "## Start point") get the start point regenerated from its
//     `// evk-sim-moves: a,b` line plus one new move from the move table (weights raised by
//     best-practice items that name a move), with that move's own pitfalls.
//   - A prompt without an fx op list ("(not traceable)") gets a reply without code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.h"

namespace evk {

struct SimOptions {
  bool pitfalls = true;        // false: never fall into a pitfall (tests, demos of the templates)
  double pitfall_scale = 1.0;  // multiplies every pitfall probability
};

// sim.pitfalls and sim.pitfall_scale from the configuration.
SimOptions sim_options(const Config& config);

std::string sim_reply(const std::string& prompt, uint64_t seed, const SimOptions& opt = {});

// The backends the sim has a generator for, sorted: the registry's (backends/registry.h).
std::vector<std::string> sim_backends();

}  // namespace evk
