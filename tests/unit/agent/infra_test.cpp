// A verification the machinery failed (category infra) says nothing about the kernel: the
// agent tries it again a bounded number of times, then logs the attempt with reward 0 and
// writes no memory item and no Q update. A test Executor plays the failing cluster.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "agent/agent.h"
#include "backends/backend.h"
#include "core/paths.h"
#include "report/metrics.h"
#include "tasks/suite.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

// Answers `infra` to the first `infra_calls` verifications, then `after` to the rest.
class FailingCluster : public Executor {
 public:
  FailingCluster(int infra_calls, Category after) : infra_calls_(infra_calls), after_(after) {}
  std::string name() const override { return "failing-cluster"; }
  Verdict verify(const TaskInfo&, const std::string&, const VerifyOptions&) override {
    Verdict v;
    v.category = calls_++ < infra_calls_ ? Category::Infra : after_;
    v.feedback = v.category == Category::Infra ? "node lost" : "outputs differ";
    return v;
  }
  std::vector<Verdict> verify_batch(const VerifyWork& work, const VerifyOptions& opt) override {
    std::vector<Verdict> out;
    for (const auto& [t, s] : work) out.push_back(verify(*t, s, opt));
    return out;
  }
  int calls() const { return calls_; }

 private:
  std::atomic<int> calls_{0};
  int infra_calls_;
  Category after_;
};

class AgentInfra : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("evk-agent-infra-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    ws_ = std::make_unique<Workspace>(root_);
    cfg_.set("sim.pitfalls", "false", "test");  // every reply holds code: the executor decides
    suite_ = load_suite(*ws_, (data_root() / "tests/data/agent_suite").string(), 0);
    opt_.method = method_by_name("evokernel");
    opt_.seed = 3;
    opt_.prompt_dir = data_root() / "prompts";
    opt_.verify = verify_options(cfg_);
    opt_.oracle = oracle_options(cfg_);
    opt_.oracle.timing_runs = 3;
    opt_.memory = memory_params(cfg_);
  }
  void TearDown() override {
    ws_.reset();
    fs::remove_all(root_);
  }

  // Runs the first task; `q_moved` counts the context items whose draft Q left 0.
  std::vector<Attempt> run(Executor& ex, int budget, size_t& items_before, size_t& items_after,
                           int& q_moved) {
    opt_.budget = budget;
    auto llm = make_provider("sim", cfg_);
    auto backend = make_backend("cpu");
    Workspace run_ws(root_ / "runs" / "1");
    Agent agent(*ws_, run_ws, *llm, ex, *backend, opt_);
    items_before = agent.memory().size();
    agent.run({&suite_.tasks[0]});
    items_after = agent.memory().size();
    auto attempts = agent.log().all();
    q_moved = 0;
    for (const auto& a : attempts)
      for (int64_t id : a.context_ids) q_moved += agent.memory().q(id, Stage::Draft) != 0;
    return attempts;
  }

  fs::path root_;
  std::unique_ptr<Workspace> ws_;
  Config cfg_;
  Suite suite_;
  AgentOptions opt_;
};

TEST_F(AgentInfra, RetriedThenLoggedWithoutRewardOrMemory) {
  FailingCluster cluster(1000, Category::Mismatch);  // the cluster never answers
  size_t before = 0, after = 0;
  int q_moved = -1;
  auto attempts = run(cluster, 2, before, after, q_moved);
  ASSERT_EQ(attempts.size(), 2u) << "infra attempts still use the budget, so resume stays exact";
  EXPECT_EQ(cluster.calls(), 2 * (1 + opt_.infra_retries));
  for (const auto& a : attempts) {
    EXPECT_EQ(a.verdict.category, Category::Infra);
    EXPECT_EQ(a.reward, 0);
    EXPECT_EQ(a.reward_raw, 0);
    EXPECT_EQ(a.trace_item, 0) << "no trace of an attempt the kernel is not to blame for";
  }
  EXPECT_EQ(after, before) << "no memory item written";
  EXPECT_EQ(q_moved, 0) << "no Q update";
  // The second prompt does not show the first attempt: nothing in it a model could act on.
  EXPECT_EQ(attempts[1].prompt.find("node lost"), std::string::npos);
  // Nor does it count as a failed compilation.
  TaskRecord task;
  task.task = suite_.tasks[0].id;
  Metrics m = compute_metrics({task}, attempts, 2);
  EXPECT_EQ(m.with_code, 0);
  EXPECT_EQ(m.failures[Category::Infra], 2);
}

TEST_F(AgentInfra, AVerdictAfterRetriesCountsAsUsual) {
  FailingCluster cluster(opt_.infra_retries, Category::Mismatch);  // lost twice, then answered
  size_t before = 0, after = 0;
  int q_moved = -1;
  auto attempts = run(cluster, 1, before, after, q_moved);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(cluster.calls(), 1 + opt_.infra_retries);
  EXPECT_EQ(attempts[0].verdict.category, Category::Mismatch);
  EXPECT_EQ(attempts[0].reward, -1);
  EXPECT_NE(attempts[0].trace_item, 0);
  EXPECT_GT(after, before);
  EXPECT_GT(q_moved, 0) << "the -1 reward reaches the context's Q";
}

}  // namespace
}  // namespace evk
