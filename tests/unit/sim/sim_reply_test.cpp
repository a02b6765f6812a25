// The sim as a whole: deterministic, prompt-only, labelled, learning only through markers in
// its context, refining one move at a time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "llm/provider.h"
#include "llm/sim_provider.h"
#include "sim/sim.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

std::string prompt(const std::string& tensors, const std::string& ops,
                   const std::string& memory = "(none)\n", const std::string& attempts = "(none yet)\n") {
  return "You are an expert kernel engineer. Write a kernel for the `cpu` backend.\n\n## Backend guide\n(guide)\n\n## Task `t` (level 1)\n\n"
         "```python\nclass Model: ...\n```\n\n## Tensors, in ABI order\n" + tensors +
         "\n## Operators (torch.fx graph, in execution order)\n" + ops + "\n## Retrieved memory\n" +
         memory + "\n## Your earlier attempts on this task\n" + attempts + "\n## Answer\nReply.\n";
}

std::string refine_prompt(const std::string& tensors, const std::string& ops, const std::string& start,
                          const std::string& memory = "(none)\n") {
  return "You are an expert kernel engineer. Write a kernel for the `cpu` backend.\n\n## Tensors, in ABI order\n" + tensors +
         "\n## Operators (torch.fx graph, in execution order)\n" + ops +
         "\n## Start point\nattempt 3: 1.2000 ms (10.0% of roofline; 1.10x over PyTorch eager)\n```cpp\n" +
         start + "```\n\n## Children of this start point (variants tried from it)\n(none yet)\n\n"
         "## Retrieved memory\n" + memory + "\n## Answer\nReply.\n";
}

const std::string kLinearTensors =
    "- in[0] in.0: input F32 [32, 64]\n- in[1] param.fc.weight: param F32 [16, 64]\n"
    "- in[2] param.fc.bias: param F32 [16]\n- out[0] out.0: output F32 [32, 16]\n";
const std::string kLinearOps =
    "- %x = placeholder x args=() kwargs={} -> [32, 64]\n"
    "- %fc = call_module fc [Linear(in_features=64, out_features=16, bias=True)] args=(x,) kwargs={} -> [32, 16]\n"
    "- %relu = call_function relu args=(fc,) kwargs={} -> [32, 16]\n"
    "- %mul = call_function mul args=(relu, 2.0) kwargs={} -> [32, 16]\n"
    "- %output = output output args=(mul,) kwargs={} -> [32, 16]\n";

std::string moves_line(const std::string& reply) {
  size_t p = reply.find("// evk-sim-moves:");
  return reply.substr(p + 18, reply.find('\n', p) - p - 18);
}

TEST(Sim, SameSeedSamePromptSameReply) {
  std::string p = prompt(kLinearTensors, kLinearOps);
  for (uint64_t s : {0ull, 1ull, 12345ull}) EXPECT_EQ(sim_reply(p, s), sim_reply(p, s));
}

TEST(Sim, DifferentSeedsDifferSometimes) {
  std::string p = prompt(kLinearTensors, kLinearOps);
  std::set<std::string> replies;
  for (uint64_t s = 0; s < 40; ++s) replies.insert(sim_reply(p, s));
  EXPECT_GT(replies.size(), 3u);
}

TEST(Sim, WorksFromThePromptAloneAndSaysWhatItIs) {
  // No workspace, no data root, an empty working directory: the prompt must carry everything.
  fs::path empty = fs::temp_directory_path() / ("evk-sim-empty-" + std::to_string(::getpid()));
  fs::create_directories(empty);
  fs::path cwd = fs::current_path();
  const char* old_home = std::getenv("EVK_HOME");
  std::string saved = old_home ? old_home : "";
  ::setenv("EVK_HOME", empty.c_str(), 1);
  fs::current_path(empty);
  SimOptions clean;
  clean.pitfalls = false;
  std::string r = sim_reply(prompt(kLinearTensors, kLinearOps), 3, clean);
  fs::current_path(cwd);
  if (old_home) ::setenv("EVK_HOME", saved.c_str(), 1);
  else ::unsetenv("EVK_HOME");
  fs::remove_all(empty);
  EXPECT_NE(r.find("not a language model"), std::string::npos);
  EXPECT_NE(r.find("```cpp\n"), std::string::npos);
  EXPECT_NE(r.find("EVK_EXPORT int evk_forward(const evk_tensor* in"), std::string::npos);
  EXPECT_NE(r.find("static_cast<const float*>(in[1].data);  // param.fc.weight"), std::string::npos);
  EXPECT_NE(r.find("return 0;"), std::string::npos);
  EXPECT_EQ(r.find("evk-pitfall"), std::string::npos);
}

int count_marker(const std::string& p, const std::string& name, int n) {
  int hits = 0;
  for (int s = 0; s < n; ++s) hits += sim_reply(p, static_cast<uint64_t>(s)).find("evk-pitfall: " + name) != std::string::npos;
  return hits;
}

TEST(Sim, APitfallMarkerInContextMakesThatPitfallRare) {
  std::string cold = prompt(kLinearTensors, kLinearOps);
  std::string mem = "### [memory #9] trace: matmul attempt (mismatch)\ntags: cpu\nfeedback: 512 mismatches\n"
                    "```cpp\n// evk-pitfall: transposed_weight\nint x;\n```\n";
  std::string warned = prompt(kLinearTensors, kLinearOps, mem);
  std::string in_attempts = prompt(kLinearTensors, kLinearOps, "(none)\n",
                                   "### attempt 1 (draft): mismatch\n```cpp\n// evk-pitfall: transposed_weight\n```\n");
  int n = 400;
  int base = count_marker(cold, "transposed_weight", n);
  int with_mem = count_marker(warned, "transposed_weight", n);
  int with_attempt = count_marker(in_attempts, "transposed_weight", n);
  EXPECT_GT(base, 80);  // 0.30 of 400 expected
  EXPECT_LT(with_mem * 4, base);
  EXPECT_LT(with_attempt * 4, base);
  // Other pitfalls keep their odds.
  EXPECT_GT(count_marker(warned, "off_by_one_write", n), 25);  // 0.18 of 400
}

TEST(Sim, ColdStartsFailOftenButNotAlways) {
  std::string p = prompt(kLinearTensors, kLinearOps);
  int with_pitfall = 0;
  for (int s = 0; s < 200; ++s) with_pitfall += sim_reply(p, static_cast<uint64_t>(s)).find("evk-pitfall") != std::string::npos;
  EXPECT_GT(with_pitfall, 80);
  EXPECT_LT(with_pitfall, 190);
}

TEST(Sim, NoPitfallsWhenSwitchedOff) {
  SimOptions clean;
  clean.pitfalls = false;
  for (uint64_t s = 0; s < 50; ++s)
    EXPECT_EQ(sim_reply(prompt(kLinearTensors, kLinearOps), s, clean).find("evk-pitfall"), std::string::npos);
}

// The backend comes from the prompt alone: a prompt that names none gets no kernel for a
// guessed backend (it once defaulted to cpu).
TEST(Sim, PromptNamingNoBackendGetsNoGuessedKernel) {
  SimOptions clean;
  clean.pitfalls = false;
  std::string named = prompt(kLinearTensors, kLinearOps);
  std::string unnamed = named;
  unnamed.replace(unnamed.find(" Write a kernel for the `cpu` backend."), 38, "");
  EXPECT_NE(sim_reply(named, 1, clean).find("evk_forward"), std::string::npos);
  std::string r = sim_reply(unnamed, 1, clean);
  EXPECT_EQ(r.find("evk_forward"), std::string::npos) << r;
  EXPECT_NE(r.find("names no backend"), std::string::npos) << r;
}

TEST(Sim, UntraceableGraphGetsNoCode) {
  std::string r = sim_reply(prompt("- in[0] in.0: input F32 [4]\n- out[0] out.0: output F32 [4]\n", "(not traceable)\n"), 1);
  EXPECT_EQ(r.find("```"), std::string::npos);
  EXPECT_NE(r.find("not traceable"), std::string::npos);
}

TEST(Sim, UnknownOperatorCallsAHelperThatDoesNotExist) {
  std::string ops = "- %x = placeholder x args=() kwargs={} -> [4, 8]\n"
                    "- %lstm = call_module lstm [LSTM(8, 8)] args=(x,) kwargs={} -> [4, 8]\n"
                    "- %output = output output args=(lstm,) kwargs={} -> [4, 8]\n";
  SimOptions clean;
  clean.pitfalls = false;
  std::string r = sim_reply(prompt("- in[0] in.0: input F32 [4, 8]\n- out[0] out.0: output F32 [4, 8]\n", ops), 1, clean);
  EXPECT_NE(r.find("evk_LSTM_kernel(in, out)"), std::string::npos);
}

// The sim runs in the agent's process: a graph it models wrongly (here a cat of parts of
// different ranks, as its view of level-3 28_VisionTransformer had) must give an unknown op,
// never an index past a shape's end (that run ended in a segfault).
TEST(Sim, CatOfPartsOfDifferentRanksIsAnUnknownOp) {
  std::string ops =
      "- %x = placeholder x args=() kwargs={} -> [4, 8]\n"
      "- %p = get_attr p args=() kwargs={} -> [8]\n"
      "- %cat = call_function cat args=([x, p],) kwargs={'dim': 1} -> [4, 16]\n"
      "- %output = output output args=(cat,) kwargs={} -> [4, 16]\n";
  SimOptions clean;
  clean.pitfalls = false;
  std::string r =
      sim_reply(prompt("- in[0] in.0: input F32 [4, 8]\n- in[1] param.p: param F32 [8]\n"
                       "- out[0] out.0: output F32 [4, 16]\n",
                       ops),
                1, clean);
  EXPECT_NE(r.find("evk_cat_kernel("), std::string::npos) << r;
}

TEST(Sim, RefiningKeepsTheStartPointsMovesAndAddsOne) {
  SimOptions clean;
  clean.pitfalls = false;
  std::set<std::string> added;
  for (uint64_t s = 0; s < 60; ++s) {
    std::string r = sim_reply(refine_prompt(kLinearTensors, kLinearOps, "// evk-sim-moves: fuse\nint old;\n"), s, clean);
    std::string m = moves_line(r);
    ASSERT_EQ(m.rfind("fuse,", 0), 0u) << m;
    EXPECT_EQ(m.find(',', 5), std::string::npos) << m;  // exactly one new move
    added.insert(m.substr(5, m.find(':') == std::string::npos ? std::string::npos : m.find(':') - 5));
  }
  EXPECT_GE(added.size(), 4u);  // notemps, reorder, simd, omp (tile needs a bigger product)
  EXPECT_FALSE(added.count("fuse"));
}

TEST(Sim, BestPracticesNamingAMoveRaiseItsOdds) {
  std::string start = "// evk-sim-moves: none\n";
  std::string mem = "### [memory #2] best_practice: loop order for products\ntags: cpu\n"
                    "Reorder the product loops to i-k-j so the inner loop is contiguous (loop order matters).\n";
  int plain = 0, advised = 0;
  for (uint64_t s = 0; s < 300; ++s) {
    plain += moves_line(sim_reply(refine_prompt(kLinearTensors, kLinearOps, start), s)) .rfind("reorder", 0) == 0;
    advised += moves_line(sim_reply(refine_prompt(kLinearTensors, kLinearOps, start, mem), s)).rfind("reorder", 0) == 0;
  }
  EXPECT_GT(advised, plain * 2) << plain << " vs " << advised;
}

TEST(SimProvider, IsLabelledDeterministicAndCountsWords) {
  Config cfg;
  auto p = make_sim_provider(cfg);
  EXPECT_EQ(p->name(), "sim");
  EXPECT_TRUE(p->simulated());
  std::vector<Message> msgs = {{"system", "You write kernels."}, {"user", prompt(kLinearTensors, kLinearOps)}};
  CompletionOptions o;
  o.seed = 11;
  Completion a = p->complete(msgs, o), b = p->complete(msgs, o);
  EXPECT_EQ(a.text, b.text);
  EXPECT_TRUE(a.usage.estimated);
  EXPECT_GT(a.usage.prompt_tokens, 50);
  EXPECT_GT(a.usage.completion_tokens, 50);
  EXPECT_EQ(a.model, "sim");
  bool differs = false;
  for (uint64_t s = 12; s < 40 && !differs; ++s) {
    o.seed = s;
    differs = p->complete(msgs, o).text != a.text;
  }
  EXPECT_TRUE(differs);
  EXPECT_THROW(p->complete({{"system", "x"}}, o), ProviderError);
}

}  // namespace
}  // namespace evk
