// End to end: the agent against a fake OpenAI server (real HTTP on loopback) that answers a
// scripted sequence, the real verifier and a real memory. Asserts the stage transitions, the Q
// updates, the items written and the metrics.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "agent/agent.h"
#include "backends/backend.h"
#include "core/paths.h"
#include "fake_openai.h"
#include "report/metrics.h"
#include "tasks/suite.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

std::string kernel(const std::string& body) {
  return "```cpp\n#include \"evokernel/kernel_abi.h\"\n#include <cmath>\n"
         "extern \"C\" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {\n"
         "  const float* x = static_cast<const float*>(in[0].data);\n"
         "  float* y = static_cast<float*>(out[0].data);\n"
         "  const int64_t n = evk_numel(&in[0]);\n" +
         body + "\n  return 0;\n}\n```\n";
}

// Correct but slow: exp and log per element cost far more than the operator itself.
const std::string kSlowRelu =
    kernel("  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? 0.0f : std::log(std::exp(x[i]));");
const std::string kFastRelu =
    kernel("  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? 0.0f : x[i];");  // NaN stays NaN
const std::string kZeros = kernel("  for (int64_t i = 0; i < n; ++i) y[i] = 0.0f;");
const std::string kCompileError = kernel("  for (int64_t i = 0; i < n; ++i) y[i] = undefined_fn(x[i]);");
const std::string kSlowAffine =
    kernel("  for (int64_t i = 0; i < n; ++i) y[i] = std::log(std::exp(x[i] * 2.0f + 1.0f));");
const std::string kFastAffine = kernel("  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * 2.0f + 1.0f;");

fake::Behavior reply(const std::string& text) {
  fake::Behavior b;
  b.text = text;
  return b;
}

// A reply the server stopped at max_tokens (finish_reason "length").
fake::Behavior cut_reply(const std::string& text) {
  fake::Behavior b = reply(text);
  b.kind = "length";
  return b;
}

// The evokernel method at `budget`, verifying with 2 seeds and a short timing budget.
AgentOptions e2e_options(const Config& cfg, int budget) {
  AgentOptions opt;
  opt.method = method_by_name("evokernel");
  opt.budget = budget;
  opt.prompt_dir = data_root() / "prompts";
  opt.verify = verify_options(cfg);
  opt.verify.seeds = 2;
  opt.verify.timing_budget_ms = 200;
  opt.oracle = oracle_options(cfg);
  opt.oracle.timing_runs = 5;
  opt.memory = memory_params(cfg);
  return opt;
}

class AgentE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("evk-agent-e2e-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    ws_ = std::make_unique<Workspace>(root_);
  }
  void TearDown() override {
    ws_.reset();
    fs::remove_all(root_);
  }
  fs::path root_;
  std::unique_ptr<Workspace> ws_;
};

TEST_F(AgentE2E, DraftsThenRefinesAndLearns) {
  fake::FakeOpenAI server;
  server.script({
      // relu_small: no code, compile error, zeros, slow correct, fast correct (refine)
      reply("I cannot write this kernel."), reply(kCompileError), reply(kZeros), reply(kSlowRelu),
      reply(kFastRelu),
      // scale_shift: zeros, slow correct, fast correct (refine), compile error (refine), slow
      reply(kZeros), reply(kSlowAffine), reply(kFastAffine), reply(kCompileError),
      reply(kSlowAffine)});

  Config cfg;
  cfg.set("llm.base_url", server.base_url(), "test");
  cfg.set("llm.retries", "0", "test");
  Suite suite = load_suite(*ws_, (data_root() / "tests/data/agent_suite").string(), 0);
  ASSERT_EQ(suite.tasks.size(), 2u);

  AgentOptions opt = e2e_options(cfg, 5);
  opt.seed = 7;
  opt.memory.epsilon = 0;  // greedy: the test knows which items are picked from their Q

  auto llm = make_provider("openai:fake", cfg);
  auto backend = make_backend("cpu");
  Verifier verifier(*ws_, opt.oracle);
  Workspace run_ws(root_ / "runs" / "1");
  Agent agent(*ws_, run_ws, *llm, verifier, *backend, opt);
  size_t seeded = agent.memory().size();
  ASSERT_GT(seeded, 10u) << "the cpu knowledge bundle seeds the memory";

  agent.run({&suite.tasks[0], &suite.tasks[1]});

  auto attempts = agent.log().all();
  ASSERT_EQ(attempts.size(), 10u);
  std::vector<std::string> stages, categories;
  for (const auto& a : attempts) {
    stages.push_back(stage_name(a.stage));
    categories.push_back(category_name(a.verdict.category));
  }
  EXPECT_EQ(stages, (std::vector<std::string>{"draft", "draft", "draft", "draft", "refine",
                                               "draft", "draft", "refine", "refine", "refine"}));
  EXPECT_EQ(categories, (std::vector<std::string>{"no_code", "compile", "mismatch", "ok", "ok",
                                                   "mismatch", "ok", "ok", "compile", "ok"}));
  // Drafting rewards are +-1; refining rewards are normalised (finite, clipped).
  EXPECT_EQ(attempts[1].reward, -1);
  EXPECT_EQ(attempts[3].reward, 1);
  EXPECT_LT(attempts[4].verdict.latency_ms, attempts[3].verdict.latency_ms);
  EXPECT_GT(attempts[4].reward_raw, 0);
  EXPECT_EQ(attempts[8].reward_raw, -1);
  EXPECT_TRUE(attempts[4].start_point.has_value());
  EXPECT_EQ(*attempts[4].start_point, attempts[3].id);

  // Q-values: replaying every attempt's update Q <- Q + alpha (r - Q) over its context (and
  // its start point's trace when refining) gives exactly what the memory holds.
  std::map<std::pair<int64_t, int>, double> q;
  for (const auto& a : attempts) {
    int stage = a.stage == Stage::Draft ? 0 : 1;
    std::vector<int64_t> ids = a.context_ids;
    if (a.start_point)
      for (const auto& s : attempts)
        if (s.id == *a.start_point && s.trace_item) ids.push_back(s.trace_item);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (int64_t id : ids) q[{id, stage}] += opt.memory.alpha * (a.reward - q[{id, stage}]);
  }
  ASSERT_FALSE(q.empty());
  for (const auto& [key, value] : q)
    EXPECT_NEAR(agent.memory().q(key.first, key.second ? Stage::Refine : Stage::Draft), value,
                1e-12)
        << "item " << key.first;

  // Items: a trace per attempt, an experience per failure-then-success, a best practice per
  // refinement that beat the best.
  auto count = [&](ItemKind k, const std::string& task) {
    int n = 0;
    for (const auto& it : agent.memory().list(k))
      if (it.origin_task == task) ++n;
    return n;
  };
  EXPECT_EQ(count(ItemKind::Trace, "relu_small"), 5);
  EXPECT_EQ(count(ItemKind::Experience, "relu_small"), 1);
  EXPECT_EQ(count(ItemKind::BestPractice, "relu_small"), 1);
  EXPECT_EQ(count(ItemKind::Experience, "scale_shift"), 1);
  for (const auto& a : attempts) EXPECT_GT(a.trace_item, 0);

  // The second task benefits from the first: its first prompt shows memory from relu_small.
  std::vector<int64_t> from_first;
  for (int64_t id : attempts[5].context_ids)
    if (agent.memory().get(id).origin_task == "relu_small") from_first.push_back(id);
  EXPECT_FALSE(from_first.empty());
  for (int64_t id : from_first)
    EXPECT_NE(attempts[5].prompt.find("[memory #" + std::to_string(id) + "]"), std::string::npos);

  // Metrics from the attempts alone.
  Metrics m = compute_metrics(agent.log().tasks(), attempts, opt.budget);
  EXPECT_EQ(m.tasks, 2);
  EXPECT_EQ(m.solved, 2);
  EXPECT_DOUBLE_EQ(m.acc, 1.0);
  EXPECT_DOUBLE_EQ(m.compilation_rate, 7.0 / 9.0);  // 9 replies with code, 2 did not compile
  EXPECT_DOUBLE_EQ(m.acc_round1, 0.0);
  EXPECT_EQ(m.acc_curve, (std::vector<double>{0, 0.5, 0.5, 1, 1}));  // solved at 4 and 2
  EXPECT_DOUBLE_EQ(m.attempts_to_first.median, 3.0);  // 4 and 2
  EXPECT_GT(m.speedup_over_first.median, 1.5);
  EXPECT_EQ(m.failures.at(Category::Compile), 2);
  EXPECT_EQ(m.failures.at(Category::Mismatch), 2);
  EXPECT_EQ(m.failures.at(Category::NoCode), 1);
  EXPECT_EQ(server.requests(), 10);
}

// A reasoning model at a low max_tokens: its replies stop at the limit. The model is told so in
// the next prompt (not just "no code" or a compile error), the user once per run, and a reply
// whose code block was complete before the cut is verified as usual.
TEST_F(AgentE2E, RepliesCutAtTheTokenLimitAreToldAsSuch) {
  fake::FakeOpenAI server;
  const std::string half = kFastRelu.substr(0, kFastRelu.size() / 2);  // inside the fence
  server.script({cut_reply(""), cut_reply(half), cut_reply(kFastRelu + "\nThis kernel keeps NaN")});
  Config cfg;
  cfg.set("llm.base_url", server.base_url(), "test");
  cfg.set("llm.retries", "0", "test");
  Suite suite = load_suite(*ws_, (data_root() / "tests/data/agent_suite").string(), 0);
  AgentOptions opt = e2e_options(cfg, 3);
  opt.completion.max_tokens = 1234;
  auto llm = make_provider("openai:fake", cfg);
  auto backend = make_backend("cpu");
  Verifier verifier(*ws_, opt.oracle);
  Workspace run_ws(root_ / "runs" / "1");
  std::vector<std::string> warnings;
  Agent agent(*ws_, run_ws, *llm, verifier, *backend, opt, [&](const AgentEvent& e) {
    if (e.kind == "task_warning") warnings.push_back(e.reason);
  });
  agent.run({&suite.tasks[0]});

  auto attempts = agent.log().all();
  ASSERT_EQ(attempts.size(), 3u);
  EXPECT_EQ(attempts[0].verdict.category, Category::NoCode);
  EXPECT_NE(attempts[0].verdict.feedback.find(
                "cut at the token limit (1234 tokens), all of it spent on reasoning"),
            std::string::npos)
      << attempts[0].verdict.feedback;
  EXPECT_EQ(attempts[1].verdict.category, Category::Compile);
  EXPECT_EQ(
      attempts[1].verdict.feedback.rfind(
          "your reply was cut at the token limit (1234 tokens): the source may be incomplete", 0),
      0u)
      << attempts[1].verdict.feedback;
  EXPECT_NE(attempts[1].prompt.find("all of it spent on reasoning"), std::string::npos)
      << "the next prompt shows the model why its last reply had no code";
  EXPECT_EQ(attempts[2].verdict.category, Category::Ok) << attempts[2].verdict.feedback;
  EXPECT_EQ(attempts[2].verdict.feedback.find("cut at the token limit"), std::string::npos);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("llm.max_tokens = 1234"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace evk
