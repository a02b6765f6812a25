// End to end, the agent's model calls beside the coder's: the model auditor (agent/auditor.h)
// and the experiences the model writes (memory.summarize = model, agent/experience_request.h).
// The coder and the auditor are the fake OpenAI server (real HTTP on loopback) answering a
// script in arrival order; the verifier, the memory and the run database are the real ones.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent/agent.h"
#include "backends/backend.h"
#include "core/paths.h"
#include "fake_openai.h"
#include "report/metrics.h"
#include "tasks/suite.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

std::string mc_kernel(const std::string& body) {
  return "```cpp\n#include \"evokernel/kernel_abi.h\"\n#include <cmath>\n"
         "extern \"C\" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {\n"
         "  const float* x = static_cast<const float*>(in[0].data);\n"
         "  float* y = static_cast<float*>(out[0].data);\n"
         "  const int64_t n = evk_numel(&in[0]);\n" +
         body + "\n  return 0;\n}\n```\n";
}
// Correct but slow (two transcendental calls per element), and correct and fast.
const std::string kMcSlow = mc_kernel(
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? 0.0f : std::log(std::exp(x[i]));");
const std::string kMcFast =
    mc_kernel("  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? 0.0f : x[i];");

fake::Behavior mc_say(const std::string& text) {
  fake::Behavior b;
  b.text = text;
  return b;
}
const std::string kClean =
    "{\"verdict\": \"clean\", \"reason\": \"a plain elementwise loop over every element; nothing "
    "is kept between calls\"}";
const std::string kSuspicious =
    "{\"verdict\": \"suspicious\", \"reason\": \"the speed-up over the previous kernel is larger "
    "than removing two libm calls explains\"}";

class ModelCallsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("evk-model-calls-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    ws_ = std::make_unique<Workspace>(root_);
    cfg_.set("llm.base_url", server_.base_url(), "test");
    cfg_.set("llm.retries", "0", "test");
    suite_ = load_suite(*ws_, (data_root() / "tests/data/agent_suite").string(), 0);
  }
  void TearDown() override {
    ws_.reset();
    fs::remove_all(root_);
  }
  AgentOptions options(int budget) {
    AgentOptions opt;
    opt.method = method_by_name("evokernel");
    opt.budget = budget;
    opt.seed = 3;
    opt.prompt_dir = data_root() / "prompts";
    opt.verify = verify_options(cfg_);
    opt.verify.seeds = 2;
    opt.verify.timing_budget_ms = 200;
    opt.oracle = oracle_options(cfg_);
    opt.oracle.timing_runs = 5;
    opt.memory = memory_params(cfg_);
    opt.memory.epsilon = 0;
    return opt;
  }
  int best_practices(Agent& agent) {
    int n = 0;
    for (const auto& it : agent.memory().list(ItemKind::BestPractice))
      if (it.origin_task == "relu_small") ++n;
    return n;
  }

  fake::FakeOpenAI server_;
  Config cfg_;
  fs::path root_;
  std::unique_ptr<Workspace> ws_;
  Suite suite_;
};

class AgentAudit : public ModelCallsE2E {};
class AgentSummarise : public ModelCallsE2E {};

// Withhold (the default): the refinement the auditor calls suspicious is not the best, earns no
// reward, writes no best practice and is no start point; the model is told why; the next
// kernel that beats the best is reviewed again and credited.
TEST_F(AgentAudit, ASuspiciousNewBestIsWithheld) {
  server_.script({mc_say(kMcSlow), mc_say(kClean), mc_say(kMcFast), mc_say(kSuspicious),
                  mc_say(kMcFast), mc_say(kClean)});
  auto llm = make_provider("openai:fake", cfg_);
  AgentOptions opt = options(3);
  opt.auditor = std::make_shared<Auditor>(*llm, "openai:fake", AuditPolicy::Withhold, 512);
  auto backend = make_backend("cpu");
  Verifier verifier(*ws_, opt.oracle);
  Workspace run_ws(root_ / "runs" / "1");
  Agent agent(*ws_, run_ws, *llm, verifier, *backend, opt);
  agent.run({&suite_.tasks[0]});

  auto a = agent.log().all();  // read back from the run database
  ASSERT_EQ(a.size(), 3u);
  for (const auto& x : a) ASSERT_TRUE(x.verdict.feasible) << x.verdict.feedback;
  EXPECT_EQ(a[0].audit.outcome, AuditOutcome::Clean);
  EXPECT_FALSE(a[0].audit.withheld);
  EXPECT_EQ(a[1].audit.outcome, AuditOutcome::Suspicious);
  EXPECT_TRUE(a[1].audit.withheld);
  EXPECT_EQ(a[1].audit.model, "openai:fake");
  EXPECT_NE(a[1].audit.reason.find("larger than removing"), std::string::npos);
  EXPECT_EQ(a[1].reward, 0);
  EXPECT_EQ(a[1].reward_raw, 0);
  EXPECT_NE(a[1].verdict.feedback.find("suspicious (credit withheld)"), std::string::npos)
      << a[1].verdict.feedback;
  // Attempt 3 refines from attempt 1, not from the withheld one, and its prompt shows the
  // withheld child with the auditor's reason.
  ASSERT_TRUE(a[2].start_point);
  EXPECT_EQ(*a[2].start_point, a[0].id);
  EXPECT_NE(a[2].prompt.find("credit withheld"), std::string::npos);
  EXPECT_EQ(a[2].audit.outcome, AuditOutcome::Clean);
  EXPECT_GT(a[2].reward_raw, 0);
  EXPECT_EQ(best_practices(agent), 1) << "only the credited refinement writes a best practice";
  EXPECT_GT(a[1].prompt_tokens, 0);
  EXPECT_GE(a[1].prompt_tokens, a[1].audit.prompt_tokens) << "the audit's tokens are the attempt's";

  // What the auditor was sent: the task, the kernel and the verdict.
  const auto bodies = server_.bodies();
  ASSERT_EQ(bodies.size(), 6u);
  const std::string sent = bodies[3]["messages"][1]["content"].get<std::string>();
  EXPECT_NE(sent.find("task `relu_small`"), std::string::npos);
  EXPECT_NE(sent.find("x[i] < 0 ? 0.0f : x[i]"), std::string::npos);
  EXPECT_NE(sent.find("## The verifier's verdict\nfeasible"), std::string::npos);
  EXPECT_EQ(bodies[3]["temperature"], 0);

  Metrics m = compute_metrics(agent.log().tasks(), a, opt.budget);
  EXPECT_EQ(m.audit.audited, 3);
  EXPECT_EQ(m.audit.clean, 2);
  EXPECT_EQ(m.audit.suspicious, 1);
  EXPECT_EQ(m.audit.withheld, 1);
  EXPECT_EQ(m.audit.calls, 3);
  ASSERT_EQ(m.per_task.size(), 1u);
  EXPECT_EQ(m.per_task[0].withheld, 1);
  EXPECT_EQ(m.per_task[0].best_attempt, a[2].id);
  EXPECT_EQ(to_json(m)["audit"]["withheld"], 1);
}

// Warn: the same answer is recorded and shown, and the kernel is credited. A kernel that would
// not be the new best is not reviewed.
TEST_F(AgentAudit, WarnRecordsAndCredits) {
  server_.script(
      {mc_say(kMcSlow), mc_say(kClean), mc_say(kMcFast), mc_say(kSuspicious), mc_say(kMcSlow)});
  auto llm = make_provider("openai:fake", cfg_);
  AgentOptions opt = options(3);
  opt.auditor = std::make_shared<Auditor>(*llm, "openai:fake", AuditPolicy::Warn, 512);
  auto backend = make_backend("cpu");
  Verifier verifier(*ws_, opt.oracle);
  Workspace run_ws(root_ / "runs" / "1");
  Agent agent(*ws_, run_ws, *llm, verifier, *backend, opt);
  agent.run({&suite_.tasks[0]});

  auto a = agent.log().all();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[1].audit.outcome, AuditOutcome::Suspicious);
  EXPECT_FALSE(a[1].audit.withheld);
  EXPECT_GT(a[1].reward_raw, 0);
  EXPECT_EQ(best_practices(agent), 1);
  EXPECT_FALSE(a[2].audit.audited()) << "slower than the best: nothing to credit, no review";
  EXPECT_EQ(server_.requests(), 5);
  Metrics m = compute_metrics(agent.log().tasks(), a, opt.budget);
  EXPECT_EQ(m.per_task[0].best_attempt, a[1].id);
  EXPECT_EQ(m.audit.withheld, 0);
}

// memory.summarize = model: a refinement confirmed faster costs one more call; the coder's
// answer is stored above the rule summary with its provenance, tagged model_written, recorded
// in the cassette, retrieved like a rule item and exported and imported with it.
TEST_F(AgentSummarise, TheModelsExperienceIsStoredRetrievedAndExported) {
  const std::string experience =
      "{\"what_changed\": \"Replaced log(exp(x)) on the positive branch with x itself, so each "
      "element costs one compare and one store.\", \"why_it_paid\": \"log(exp(x)) is the "
      "identity for positive x but costs two libm calls per element; without them the loop "
      "streams at memory speed instead of waiting on the FP units.\", \"bound\": \"compute\"}";
  server_.script({mc_say(kMcSlow), mc_say(kMcFast), mc_say(experience)});
  const fs::path cassette = root_ / "summarise.jsonl";
  cfg_.set("llm.record", cassette.string(), "test");
  cfg_.set("memory.summarize", "model", "test");
  auto llm = make_provider("openai:fake", cfg_);
  AgentOptions opt = options(2);
  ASSERT_TRUE(opt.memory.model_experiences);
  auto backend = make_backend("cpu");
  Verifier verifier(*ws_, opt.oracle);
  Workspace run_ws(root_ / "runs" / "1");
  Agent agent(*ws_, run_ws, *llm, verifier, *backend, opt);
  agent.run({&suite_.tasks[0]});

  auto a = agent.log().all();
  ASSERT_EQ(a.size(), 2u);
  ASSERT_GT(a[1].reward_raw, 0) << a[1].verdict.feedback;
  EXPECT_EQ(server_.requests(), 3);
  const std::string asked = server_.bodies()[2]["messages"][1]["content"].get<std::string>();
  EXPECT_NE(asked.find("was confirmed faster"), std::string::npos) << asked;
  EXPECT_NE(asked.find("std::log(std::exp(x[i]))"), std::string::npos) << "the diff is shown";

  const Item* bp = nullptr;
  auto items = agent.memory().list(ItemKind::BestPractice);
  for (const auto& it : items)
    if (it.origin_task == "relu_small") bp = &it;
  ASSERT_TRUE(bp);
  EXPECT_EQ(bp->body.rfind("Experience (written by fake after attempt 2):\nWhat changed: Replaced "
                           "log(exp(x))",
                           0),
            0u)
      << bp->body;
  EXPECT_NE(bp->body.find("Bound it fixed: compute\n\nRule summary:\n"), std::string::npos);
  EXPECT_NE(std::find(bp->tags.begin(), bp->tags.end(), "model_written"), bp->tags.end());

  // Recorded: the summarise exchange is the cassette's third line, with the model's answer.
  std::ifstream in(cassette);
  std::vector<nlohmann::json> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["reply"]["text"], experience);

  // Retrieved like a rule item: a refining query for the task finds it by similarity.
  MemoryQuery q;
  q.text = suite_.tasks[0].source + "\nrelu";
  q.op_names = {"relu"};
  q.kinds = {ItemKind::BestPractice};
  bool found = false;
  for (const auto& r : agent.memory().retrieve(q, Stage::Refine, 1, Policy::Similarity, 0.0))
    found = found || r.item.id == bp->id;
  EXPECT_TRUE(found);

  // Exported and imported with its text and tag.
  const fs::path exported = root_ / "memory.jsonl";
  agent.memory().export_jsonl(exported);
  Workspace other(root_ / "other");
  MemoryParams mp = opt.memory;
  mp.auto_seed = false;
  Memory imported(other, mp);
  ASSERT_GT(imported.import_jsonl(exported, {}), 0u);
  bool carried = false;
  for (const auto& it : imported.list(ItemKind::BestPractice))
    carried = carried || (it.body == bp->body && std::find(it.tags.begin(), it.tags.end(),
                                                           "model_written") != it.tags.end());
  EXPECT_TRUE(carried);
}

}  // namespace
}  // namespace evk
