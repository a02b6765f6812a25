// The offline coder: decides pitfalls (drafting) or the next move (refining) from the prompt
// text and the seed, then has the generator write the kernel.
#include "sim/sim.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "sim/sim_internal.h"

namespace evk {
namespace {

using namespace sim;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// "// evk-sim-moves: reorder,tile:64" -> [(reorder,0), (tile,64)]
std::vector<std::pair<std::string, int>> moves_in(const std::string& code) {
  std::vector<std::pair<std::string, int>> out;
  size_t p = code.find("evk-sim-moves:");
  if (p == std::string::npos) return out;
  size_t e = code.find('\n', p);
  std::string list = code.substr(p + 14, e == std::string::npos ? std::string::npos : e - p - 14);
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t\r"));
    item.erase(item.find_last_not_of(" \t\r") + 1);
    if (item.empty() || item == "none") continue;
    size_t colon = item.find(':');
    int param = colon == std::string::npos ? 0 : std::atoi(item.substr(colon + 1).c_str());
    std::string name = item.substr(0, colon);
    bool known = false;
    for (const MoveRow& m : move_table()) known |= name == m.name;
    if (known) out.emplace_back(name, param);
  }
  return out;
}

// How many best-practice items' prose names the move, plus those whose code shows it as the
// newest move (last on the evk-sim-moves line). Code is not scanned: pragmas are not advice.
int mentions(const std::string& best_practices, const MoveRow& m) {
  std::string prose, code_last;
  std::istringstream in(best_practices);
  std::string line;
  bool fence = false;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      fence = !fence;
      continue;
    }
    if (line.find("evk-sim-moves:") != std::string::npos) {
      auto mv = moves_in(line);
      if (!mv.empty() && mv.back().first == m.name) ++n;
      continue;
    }
    if (!fence) prose += lower(line) + "\n";
  }
  for (const char* k : m.keywords) n += static_cast<int>(count_of(prose, k));
  return n;
}

// How many of the move's diagnosis phrases the start point's diagnosis holds.
int diagnosis_hits(const std::string& diagnosis, const MoveRow& m) {
  int n = 0;
  for (const char* k : m.diagnosis) n += diagnosis.find(k) != std::string::npos;
  return n;
}

double pitfall_probability(const PitfallRow& row, const PromptView& p, const SimOptions& opt) {
  double prob = row.base_probability * opt.pitfall_scale;
  if (p.context.find(std::string("evk-pitfall: ") + row.name) != std::string::npos) prob *= kMarkerFactor;
  return std::min(prob, 1.0);
}

Plan draft_plan(const PromptView& p, const Features& f, Rng& rng, const SimOptions& opt) {
  Plan plan;
  for (const PitfallRow& row : pitfall_table()) {
    if (std::string(row.stage) != "draft") continue;
    double u = rng.uniform();  // drawn for every row, so one row's odds never shift another's
    if (opt.pitfalls && row.applies(f) && u < pitfall_probability(row, p, opt)) plan.pitfalls.insert(row.name);
  }
  return plan;
}

const int kTiles[] = {32, 48, 64, 96, 128};

Plan refine_plan(const PromptView& p, Rng& rng, const SimOptions& opt, std::string& note) {
  Plan plan;
  plan.moves = moves_in(p.start_code);
  Features f = generate_for_backend(p, plan).features;
  std::vector<const MoveRow*> cand;
  std::vector<double> w;
  for (const MoveRow& m : move_table()) {
    if (plan.has_move(m.name) || !m.applies(f)) continue;
    cand.push_back(&m);
    w.push_back(m.base_weight *
                (1.0 + kBestPracticeBoost * std::min(mentions(p.best_practices, m), 3)) *
                (1.0 + kDiagnosisBoost * std::min(diagnosis_hits(p.diagnosis, m), 2)));
  }
  double total = 0;
  for (double x : w) total += x;
  double u = rng.uniform() * total;
  const MoveRow* chosen = nullptr;
  for (size_t k = 0; k < cand.size() && !chosen; ++k) {
    if (u < w[k] || k + 1 == cand.size()) chosen = cand[k];
    u -= w[k];
  }
  std::string move_name;
  if (chosen) {
    move_name = chosen->name;
    plan.moves.emplace_back(move_name, move_name == "tile" ? kTiles[rng.pick(5)] : 0);
    note = std::string("Added move `") + chosen->name + "`: " + chosen->change + ".";
  } else if (plan.has_move("tile")) {  // nothing new left: try another tile size
    move_name = "tile";
    int t = kTiles[rng.pick(5)];
    for (auto& [name, param] : plan.moves)
      if (name == "tile") param = t;
    note = "No new move applies; trying tile size " + std::to_string(t) + ".";
  } else {
    note = "No further move applies to this kernel; returning it unchanged.";
    return plan;
  }
  for (const PitfallRow& row : pitfall_table()) {
    if (move_name != row.stage) continue;
    double u2 = rng.uniform();
    if (opt.pitfalls && row.applies(f) && u2 < pitfall_probability(row, p, opt)) plan.pitfalls.insert(row.name);
  }
  return plan;
}

}  // namespace

namespace sim {
namespace {

// One row per backend of the registry (backends/registry.h), sorted by name: its generator
// (sim_<backend>.cpp). The sim depends on core only, so it cannot read the registry;
// Registry.TheSimHasAGeneratorForEveryBackend keeps the two equal.
struct Generator {
  const char* backend;
  GenResult (*generate)(const PromptView&, const Plan&);
};
const Generator kGenerators[] = {
    {"ascendc", generate_ascendc},
    {"cpu", generate},
    {"cuda", generate_cuda},
    {"opencl", generate_opencl},
};

}  // namespace

GenResult generate_for_backend(const PromptView& p, const Plan& plan) {
  for (const auto& g : kGenerators)
    if (p.backend == g.backend) return g.generate(p, plan);
  GenResult r;
  r.ok = false;
  if (p.backend.empty()) {
    r.unknown_ops.push_back("every operator (the prompt names no backend: \"for the `NAME` "
                            "backend\" in its first lines)");
    r.code = "// The prompt names no backend; the offline coder does not guess one.\n";
    return r;
  }
  r.unknown_ops.push_back("every operator (no templates for the " + p.backend + " backend)");
  r.code = "// The offline coder has no templates for the " + p.backend + " backend.\n";
  return r;
}
}  // namespace sim

std::vector<std::string> sim_backends() {
  std::vector<std::string> out;
  for (const auto& g : sim::kGenerators) out.push_back(g.backend);
  return out;
}

namespace {

const char* kLabel = "[evokernel offline coder (sim): per-operator loop templates, not a language model]";

}  // namespace

SimOptions sim_options(const Config& config) {
  SimOptions o;
  o.pitfalls = config.boolean("sim.pitfalls");
  o.pitfall_scale = config.real("sim.pitfall_scale");
  return o;
}

std::string sim_reply(const std::string& prompt, uint64_t seed, const SimOptions& opt) {
  PromptView p = parse_prompt(prompt);
  std::ostringstream out;
  out << kLabel << "\n\n";
  if (!p.has_ops) {
    out << (p.not_traceable ? "The operator list says the model is not traceable"
                            : "The prompt has no operator list")
        << ", and I can only write kernels from the torch.fx op list. No kernel this time.\n";
    return out.str();
  }
  Rng rng(seed);
  std::string note;
  Plan plan;
  if (p.refine) {
    plan = refine_plan(p, rng, opt, note);
  } else {
    plan = draft_plan(p, generate_for_backend(p, Plan{}).features, rng, opt);
    note = "First kernel: straightforward loop nests, one temporary per operator.";
  }
  GenResult r = generate_for_backend(p, plan);
  out << note << "\n";
  if (!r.ok) {
    out << "I have no template for:";
    for (const std::string& u : r.unknown_ops) out << " " << u << ";";
    out << " I call a helper for it.\n";
  }
  out << "\n```cpp\n" << r.code << "```\n";
  return out.str();
}

}  // namespace evk
