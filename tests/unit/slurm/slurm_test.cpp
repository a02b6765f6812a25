// `--executor slurm` against a real single-node Slurm cluster (scripts/slurm-dev, started and
// stopped by the fixture): the same verdicts as local, a whole `--model sim` run through Slurm,
// and faults (slurmd killed and restarted, a job cancelled under the run) that must never blame
// a kernel. Skipped, with the reason, only where the Slurm packages are absent.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/paths.h"
#include "core/process.h"
#include "core/workspace.h"
#include "dev_cluster.h"
#include "run/run_store.h"

namespace evk {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using slurm_test::DevCluster;

class Slurm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_ = slurm_test::why_no_dev_cluster();
    if (!skip_.empty()) return;
    root_ = fs::temp_directory_path() / ("evk-slurm-ws-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    cluster_ = new DevCluster();
  }
  static void TearDownTestSuite() {
    delete cluster_;  // always down, whatever the tests did
    cluster_ = nullptr;
    if (!root_.empty()) fs::remove_all(root_);
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(cluster_->ok()) << "scripts/slurm-dev up failed:\n" << cluster_->log();
  }

  // The CLI on the shared workspace; small references and short timing keep the tests quick.
  static ProcessResult cli(std::vector<std::string> args, double timeout_s = 600) {
    args.insert(args.begin(),
                {EVK_CLI_PATH, "--workspace", (root_ / "ws").string(), "--max-elements", "65536"});
    ProcessOptions o;
    o.env = {{"EVK_VERIFY_SEEDS", "2"},
             {"EVK_VERIFY_TIMING_BUDGET_MS", "100"},
             {"EVK_ORACLE_TIMING_RUNS", "3"},
             {"EVK_SLURM_POLL_S", "0.2"},
             {"EVK_SLURM_NODE_SCRATCH", (root_ / "node").string()}};
    o.timeout_s = timeout_s;
    return run_process(args, o);
  }

  // Attempts of the latest run in the shared workspace.
  static std::vector<Attempt> latest_attempts() {
    Workspace ws(root_ / "ws");
    RunStore store(ws);
    Workspace run_ws(store.run_dir(store.latest()));
    return AttemptLog(run_ws).all();
  }

  static inline std::string skip_;
  static inline fs::path root_;
  static inline DevCluster* cluster_ = nullptr;
};

std::string corpus(const std::string& rel) {
  return (data_root() / "tests" / "corpus" / "cpu" / rel).string();
}

// (feasible, category, gate) of every verdict `verify --json` printed.
std::vector<std::string> outcomes(const ProcessResult& r) {
  json j = json::parse(r.out);
  if (!j.is_array()) j = json::array({j});
  std::vector<std::string> out;
  for (const auto& v : j)
    out.push_back(fmt::format(
        "{} {} {} {}", fs::path(v.at("source").get<std::string>()).filename().string(),
        v.at("feasible").get<bool>(), v.at("category").get<std::string>(), v.at("gate").dump()));
  return out;
}

TEST_F(Slurm, SameVerdictsAsLocal) {
  const std::map<std::string, std::vector<std::string>> sets = {
      {"relu",
       {"solutions/relu.cpp", "hacks/constant_output.cpp", "hacks/mutate_input.cpp",
        "hacks/inline_asm.cpp", "hacks/static_buffer_replay.cpp", "hacks/partial_output.cpp"}},
      {"matmul_square", {"solutions/matmul_square.cpp", "hacks/cache_by_pointer.cpp"}}};
  for (const auto& [task, files] : sets) {
    std::vector<std::string> args = {"verify",   "builtin:level1", task, "--json", "--no-cache",
                                     "--source", corpus(files[0])};
    for (size_t i = 1; i < files.size(); ++i) args.insert(args.end(), {"--also", corpus(files[i])});
    auto local_args = args, slurm_args = args;
    local_args.insert(local_args.end(), {"--jobs", "2"});
    slurm_args.insert(slurm_args.end(), {"--executor", "slurm", "--max-in-flight", "4"});
    ProcessResult local = cli(local_args), slurm = cli(slurm_args);
    ASSERT_LE(local.exit_code, 1) << local.err;
    ASSERT_LE(slurm.exit_code, 1) << slurm.err;
    auto lo = outcomes(local), so = outcomes(slurm);
    EXPECT_EQ(so, lo) << "task " << task;
    // And both agree with what each corpus file says it must get.
    for (size_t i = 0; i < files.size(); ++i) {
      bool solution = files[i].rfind("solutions/", 0) == 0;
      EXPECT_EQ(so[i].find(" true ok ") != std::string::npos, solution) << so[i];
    }
    for (const auto& o : so) EXPECT_EQ(o.find("infra"), std::string::npos) << o;
  }
}

// A cluster's evokernel is an installed prefix on a shared path (README, cluster section): the
// controller and the workers run the installed binary, its libexec/ runners and its share/
// knowledge, with nothing read from the source or build tree.
TEST_F(Slurm, VerifiesFromAnInstalledPrefix) {
  fs::path prefix = root_ / "shared-prefix";
  ProcessResult inst =
      run_process({"cmake", "--install", EVK_BINARY_DIR, "--prefix", prefix.string()});
  ASSERT_TRUE(inst.ok()) << inst.describe() << inst.err;
  std::vector<std::string> args = {(prefix / "bin" / "evokernel").string(),
                                   "--workspace",
                                   (root_ / "ws-installed").string(),
                                   "--max-elements",
                                   "65536",
                                   "verify",
                                   "builtin:level1",
                                   "relu",
                                   "--json",
                                   "--no-cache",
                                   "--executor",
                                   "slurm",
                                   "--source",
                                   corpus("solutions/relu.cpp"),
                                   "--also",
                                   corpus("hacks/constant_output.cpp")};
  ProcessOptions o;
  o.env = {{"EVK_VERIFY_SEEDS", "2"},
           {"EVK_VERIFY_TIMING_BUDGET_MS", "100"},
           {"EVK_ORACLE_TIMING_RUNS", "3"},
           {"EVK_SLURM_POLL_S", "0.2"},
           {"EVK_SLURM_NODE_SCRATCH", (root_ / "node-installed").string()}};
  o.timeout_s = 600;
  ProcessResult r = run_process(args, o);
  ASSERT_LE(r.exit_code, 1) << r.err;
  auto so = outcomes(r);
  ASSERT_EQ(so.size(), 2u) << r.out;
  EXPECT_NE(so[0].find(" true ok "), std::string::npos) << so[0];
  EXPECT_EQ(so[1].find(" true "), std::string::npos) << so[1];
  json j = json::parse(r.out);
  EXPECT_EQ(j[0].at("metrics").value("executor", ""), "slurm") << j[0].dump();
}

TEST_F(Slurm, SimRunCompletesThroughSlurm) {
  ProcessResult r = cli({"run", "--suite", (data_root() / "tests/data/agent_suite").string(),
                         "--model", "sim", "--budget", "3", "--seed", "5", "--quiet",
                         "--parallel-tasks", "2", "--executor", "slurm", "--max-in-flight", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto all = latest_attempts();
  ASSERT_EQ(all.size(), 6u) << "2 tasks x budget 3";
  int through_slurm = 0;
  for (const auto& a : all) {
    if (!a.code.empty()) {
      EXPECT_EQ(a.verdict.metrics.value("executor", ""), "slurm") << a.task << "#" << a.idx;
      through_slurm++;
    }
    EXPECT_NE(a.verdict.category, Category::Infra) << a.verdict.feedback;
  }
  EXPECT_GT(through_slurm, 0);
  ProcessResult runs = cli({"runs"});
  EXPECT_NE(runs.out.find("done"), std::string::npos) << runs.out;
}

// The child evokernel this test process started (its parent is us), 0 when none.
pid_t child_cli() {
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::ifstream stat(e.path() / "stat");
    std::string pid, comm, state;
    long ppid = 0;
    if (stat >> pid >> comm >> state >> ppid && ppid == ::getpid() && comm == "(evokernel)")
      return static_cast<pid_t>(std::stol(pid));
  }
  return 0;
}

// A RUNNING Slurm job submitted by the evokernel child of this test (job names carry the
// submitting pid), waiting up to two minutes; empty when none came or `stop` turned true.
std::string running_job_of_child(const std::atomic<bool>& stop) {
  for (int i = 0; i < 1200 && !stop; ++i) {
    pid_t pid = child_cli();
    ProcessResult q = run_process({"squeue", "-h", "-t", "RUNNING", "-o", "%i|%j"});
    std::istringstream lines(q.out);
    for (std::string line; pid > 0 && std::getline(lines, line);)
      if (line.find(fmt::format("-{}-", pid)) != std::string::npos)
        return line.substr(0, line.find('|'));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return "";
}

// Whether process `pid` ended (or is a zombie) within `limit`, polled every 50 ms.
bool wait_until_gone(pid_t pid, std::chrono::seconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (pid > 0) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string id, comm, state;
    if (!(stat >> id >> comm >> state) || state == "Z") return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// While a run is verifying through Slurm: one running job is cancelled from outside (as a
// preemption would), then slurmd is killed and restarted. Whatever Slurm makes of it, every
// attempt ends with a real verdict or `infra`, never a kernel blamed for the cluster, and the
// run completes.
TEST_F(Slurm, FaultsNeverBlameTheKernel) {
  std::atomic<bool> finished{false};
  ProcessResult run;
  std::thread controller([&] {
    run = cli({"run", "--suite", (data_root() / "tests/data/agent_suite").string(), "--tasks",
               "relu_small", "--model", "sim", "--budget", "4", "--seed", "9", "--quiet",
               "--executor", "slurm", "--max-in-flight", "1"});
    finished = true;
  });
  std::string cancelled = running_job_of_child(finished);
  if (!cancelled.empty()) run_process({"scancel", cancelled});
  std::string hit = running_job_of_child(finished);
  if (!hit.empty()) {
    pid_t slurmd = cluster_->slurmd_pid();
    ASSERT_TRUE(cluster_->script("slurmd-kill").ok());
    // The node is lost once the killed daemon is gone (its pid no longer a live process); then
    // it comes back. No fixed sleep: the condition, polled, with a generous limit.
    EXPECT_TRUE(wait_until_gone(slurmd, std::chrono::seconds(60)))
        << "slurmd " << slurmd << " outlived kill -9";
    ProcessResult up = cluster_->script("slurmd-start");
    EXPECT_TRUE(up.ok()) << up.err;
  }
  controller.join();
  ASSERT_FALSE(cancelled.empty()) << "no job was seen running: the test did not inject a fault";
  ASSERT_EQ(run.exit_code, 0) << run.err;

  auto all = latest_attempts();
  ASSERT_EQ(all.size(), 4u);
  int resubmitted = 0;
  for (const auto& a : all) {
    if (a.verdict.category == Category::Infra) {
      EXPECT_EQ(a.reward, 0) << "an infra attempt is never a -1";
      EXPECT_EQ(a.trace_item, 0) << "and never a memory item";
    }
    resubmitted += a.verdict.metrics.value("slurm_submissions", 1) > 1;
    if (a.verdict.category != Category::Infra) {
      EXPECT_EQ(a.verdict.feedback.find("Slurm"), std::string::npos)
          << "a kernel verdict does not blame the cluster: " << a.verdict.feedback;
    }
  }
  bool any_infra = std::any_of(all.begin(), all.end(), [](const Attempt& a) {
    return a.verdict.category == Category::Infra;
  });
  EXPECT_TRUE(resubmitted > 0 || any_infra)
      << "the cancelled job was neither resubmitted nor recorded as infra";
}

// Ctrl-C on the controller: its jobs are cancelled, nothing half-done is committed (no infra
// attempt from the cancellation), and --resume completes the run.
TEST_F(Slurm, InterruptCancelsJobsAndResumes) {
  std::vector<std::string> args = {"run",
                                   "--suite",
                                   (data_root() / "tests/data/agent_suite").string(),
                                   "--model",
                                   "sim",
                                   "--budget",
                                   "2",
                                   "--seed",
                                   "13",
                                   "--quiet",
                                   "--parallel-tasks",
                                   "2",
                                   "--executor",
                                   "slurm"};
  ProcessResult first;
  std::atomic<bool> finished{false};
  std::thread controller([&] {
    first = cli(args);
    finished = true;
  });
  std::string job = running_job_of_child(finished);
  pid_t pid = child_cli();
  if (!job.empty() && pid > 0) ::kill(pid, SIGINT);
  controller.join();
  ASSERT_FALSE(job.empty()) << "no job was seen running";
  EXPECT_EQ(first.term_signal, SIGINT) << "ends by the signal, as without Slurm: " << first.err;
  EXPECT_NE(first.err.find("--resume"), std::string::npos) << first.err;
  ProcessResult left = run_process({"squeue", "-h", "-t", "PENDING,RUNNING", "-o", "%i"});
  EXPECT_EQ(left.out, "") << "jobs left running for a controller that is gone";
  for (const auto& a : latest_attempts())
    EXPECT_NE(a.verdict.category, Category::Infra)
        << "the cancellation was committed as an attempt";

  Workspace ws(root_ / "ws");
  int64_t id = RunStore(ws).latest();
  ProcessResult resumed = cli({"run", "--resume", std::to_string(id), "--quiet"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto all = latest_attempts();
  EXPECT_EQ(all.size(), 4u) << "2 tasks x budget 2 after the resume";
  for (const auto& a : all) EXPECT_NE(a.verdict.category, Category::Infra) << a.verdict.feedback;
}

// Bad input: one line naming the problem and the fix, exit 2, no run created.
TEST_F(Slurm, UnreachableControllerIsAUsageError) {
  fs::path conf = root_ / "nowhere.conf";
  {
    std::ofstream f(conf);
    f << "ClusterName=nowhere\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=9\n"
         "AuthType=auth/none\nNodeName=localhost\nPartitionName=p Nodes=localhost\n";
  }
  std::vector<std::string> args = {EVK_CLI_PATH, "--workspace", (root_ / "bad").string(),
                                   "run",        "--suite",     "builtin:level1",
                                   "--tasks",    "relu",        "--model",
                                   "sim",        "--executor",  "slurm"};
  ProcessOptions o;
  o.env = {{"SLURM_CONF", conf.string()}};
  o.timeout_s = 300;
  ProcessResult r = run_process(args, o);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot reach the Slurm controller"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(root_ / "bad" / "runs")) << "no run written";
}

}  // namespace

// Needs no cluster: the check comes before anything else.
TEST(SlurmPreflight, MissingSbatchIsAUsageError) {
  fs::path ws = fs::temp_directory_path() / ("evk-slurm-nosbatch-" + std::to_string(::getpid()));
  ProcessOptions o;
  o.env = {{"PATH", "/nonexistent"}};
  ProcessResult r =
      run_process({EVK_CLI_PATH, "--workspace", ws.string(), "run", "--suite", "builtin:level1",
                   "--tasks", "relu", "--model", "sim", "--executor", "slurm"},
                  o);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("sbatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("install slurm-client"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(ws / "runs"));
  fs::remove_all(ws);
}

}  // namespace evk
