// Runs through the CLI, as a user would: record a sim run to a cassette, replay it once
// uninterrupted and once SIGKILLed mid-way then resumed, and compare the two; bad input gives
// one clear line, exit 2 and no run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "backends/backend.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/sqlite.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

class CliRun : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("evk-cli-run-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    env_ = {{"EVK_VERIFY_SEEDS", "2"},
            {"EVK_VERIFY_TIMING_BUDGET_MS", "100"},
            {"EVK_ORACLE_TIMING_RUNS", "5"}};
  }
  void TearDown() override { fs::remove_all(root_); }

  std::vector<std::string> cli(std::vector<std::string> args) const {
    args.insert(args.begin(), {EVK_CLI_PATH, "--workspace", (root_ / "ws").string()});
    return args;
  }
  ProcessResult run(std::vector<std::string> args, std::map<std::string, std::string> extra = {}) {
    ProcessOptions o;
    o.env = env_;
    for (auto& [k, v] : extra) o.env[k] = v;
    o.timeout_s = 600;
    return run_process(cli(std::move(args)), o);
  }
  std::vector<std::string> run_args(const std::string& model) const {
    return {"run", "--suite", (data_root() / "tests/data/agent_suite").string(), "--model", model,
            "--budget", "8", "--seed", "3", "--quiet"};
  }
  fs::path root_;
  std::map<std::string, std::string> env_;
};

int64_t attempts_in(const fs::path& db) {
  if (!fs::exists(db)) return 0;
  try {
    Db d(db.string());
    auto s = d.prepare("SELECT count(*) FROM attempts");
    return s.step() ? s.int64(0) : 0;
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

// Everything a run decided, as one comparable text.
std::string fingerprint(const fs::path& db) {
  Db d(db.string());
  std::string out;
  auto a = d.prepare(
      "SELECT task, idx, stage, code, category, context_ids, reward, latency_ms FROM attempts "
      "ORDER BY task, idx");
  while (a.step())
    out += a.text(0) + "|" + a.text(1) + "|" + a.text(2) + "|" + a.text(3) + "|" + a.text(4) +
           "|" + a.text(5) + "|" + a.text(6) + "|" + a.text(7) + "\n";
  auto m = d.prepare(
      "SELECT kind, origin_task, title, body, code FROM memory_items ORDER BY id");
  while (m.step())
    out += m.text(0) + "|" + m.text(1) + "|" + m.text(2) + "|" + m.text(3) + "|" + m.text(4) + "\n";
  auto q = d.prepare("SELECT item_id, stage, q, visits FROM memory_q ORDER BY item_id, stage");
  while (q.step()) out += q.text(0) + "|" + q.text(1) + "|" + q.text(2) + "|" + q.text(3) + "\n";
  return out;
}

TEST_F(CliRun, KilledRunResumesToTheSameState) {
  fs::path cassette = root_ / "sim.jsonl";
  auto rec = run(run_args("sim"), {{"EVK_LLM_RECORD", cassette.string()}});
  ASSERT_TRUE(rec.ok()) << rec.err;
  std::string replay = "replay:" + cassette.string();

  auto whole = run(run_args(replay));  // run 2: uninterrupted
  ASSERT_TRUE(whole.ok()) << whole.err;

  // Run 3: the same, killed with SIGKILL once a few attempts are in. Its progress goes to a
  // file, as an overnight run's log does: what it printed must be there after the kill.
  fs::path log = root_ / "run3.log";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    for (auto& [k, v] : env_) ::setenv(k.c_str(), v.c_str(), 1);
    auto args = cli(run_args(replay));
    args.pop_back();  // not --quiet
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  fs::path db3 = root_ / "ws" / "runs" / "3" / "evokernel.db";
  int64_t seen = 0;
  for (int i = 0; i < 60000 && seen < 3; ++i) {
    seen = attempts_in(db3);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  int64_t at_kill = attempts_in(db3);
  ASSERT_GE(at_kill, 3);
  ASSERT_LT(at_kill, 16) << "the run finished before it could be killed";
  // One line per attempt ("[1/2] task  3/8 draft ..."); the last may be logged but not yet
  // printed when the kill lands.
  std::ifstream in(log);
  int64_t lines = 0;
  for (std::string l; std::getline(in, l);)
    lines += l.rfind("[", 0) == 0 && l.find("/8 ") != std::string::npos;
  EXPECT_GE(lines, at_kill - 1) << "progress lines were lost in a buffer at the kill";

  auto resumed = run({"run", "--resume", "3", "--quiet"});
  ASSERT_TRUE(resumed.ok()) << resumed.err;
  EXPECT_EQ(attempts_in(db3), 16);
  fs::path db2 = root_ / "ws" / "runs" / "2" / "evokernel.db";
  EXPECT_EQ(fingerprint(db2), fingerprint(db3));

  auto results = run({"results", "3"});
  ASSERT_TRUE(results.ok()) << results.err;
  EXPECT_NE(results.out.find("correctness (Acc)"), std::string::npos);
}

// Each task's record, as one comparable text.
std::string task_records(const fs::path& db) {
  Db d(db.string());
  std::string out;
  auto t = d.prepare("SELECT task, eager_ms, flops, skipped FROM run_tasks ORDER BY task");
  while (t.step())
    out += t.text(0) + "|" + t.text(1) + "|" + t.text(2) + "|" + (t.is_null(3) ? "" : t.text(3)) +
           "\n";
  return out;
}

// A resumed run leaves a task that spent its budget as it is, even where its references can no
// longer be made (another oracle, a loaded machine); a task cut off mid-way whose references
// cannot be made keeps its attempts and baseline, and continues on the next resume.
TEST_F(CliRun, ResumeLeavesFinishedTasksAlone) {
  // The suite is a copy whose files the test breaks: a resumed run reads its tasks again.
  fs::path suite = root_ / "suite";
  fs::copy(data_root() / "tests/data/agent_suite", suite);
  auto set_broken = [&](bool broken) {
    for (const auto& f : fs::directory_iterator(suite)) {
      std::string text = read_file(data_root() / "tests/data/agent_suite" / f.path().filename());
      write_file_atomic(f.path(),
                        broken ? "raise RuntimeError('no reference today')\n" + text : text);
    }
  };
  auto args = run_args("sim");
  args[2] = suite.string();
  args[6] = "4";  // the budget
  auto first = run(args);
  ASSERT_TRUE(first.ok()) << first.err;
  fs::path db = root_ / "ws" / "runs" / "1" / "evokernel.db";
  ASSERT_EQ(attempts_in(db), 8);
  std::string records = task_records(db);
  ASSERT_EQ(records.find("|0.0|"), std::string::npos) << records;

  set_broken(true);
  auto done = run({"run", "--resume", "1", "--quiet"});
  ASSERT_TRUE(done.ok()) << done.err;
  EXPECT_EQ(attempts_in(db), 8);
  EXPECT_EQ(task_records(db), records);

  std::string cut;  // the second task, as if killed after its second attempt
  {
    Db d(db.string());
    auto t = d.prepare("SELECT task FROM run_tasks ORDER BY task DESC LIMIT 1");
    ASSERT_TRUE(t.step());
    cut = t.text(0);
    d.exec("DELETE FROM attempts WHERE task = '" + cut + "' AND idx > 2");
  }
  auto broken = run({"run", "--resume", "1"});
  ASSERT_TRUE(broken.ok()) << broken.err;
  EXPECT_NE(broken.out.find("not continued this time"), std::string::npos) << broken.out;
  EXPECT_EQ(attempts_in(db), 6);
  EXPECT_EQ(task_records(db), records);

  set_broken(false);
  auto again = run({"run", "--resume", "1", "--quiet"});
  ASSERT_TRUE(again.ok()) << again.err;
  EXPECT_EQ(attempts_in(db), 8);
  EXPECT_EQ(task_records(db), records);
}

TEST_F(CliRun, BadInputIsOneClearLineAndNoRun) {
  struct Case {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string says;
  };
  std::string suite = (data_root() / "tests/data/agent_suite").string();
  std::vector<Case> cases = {
      {{"run", "--suite", "builtin:nope", "--model", "sim"}, {}, "unknown suite"},
      {{"run", "--suite", suite, "--tasks", "nope", "--model", "sim"}, {}, "no task 'nope'"},
      {{"run", "--suite", suite, "--model", "sim", "--budget", "0"}, {}, "--budget"},
      {{"run", "--suite", suite, "--model", "openai:gpt-x"},
       {{"EVK_LLM_BASE_URL", "http://127.0.0.1:9/v1"}},
       "cannot reach"},
      {{"run", "--suite", suite, "--model", "openai:gpt-x"},
       {{"EVK_LLM_BASE_URL", "https://api.openai.com/v1"}, {"OPENAI_API_KEY", ""},
        {"EVK_API_KEY", ""}},
       "EVK_API_KEY"},
      {{"run", "--suite", suite, "--model", "sim", "--bogus-flag"}, {}, "bogus"},
  };
  // Where no GPU exists, a local CUDA run would only spend its budget on `no_device` verdicts.
  if (make_backend("cuda")->device_unavailable())
    cases.push_back({{"run", "--suite", suite, "--model", "sim", "--backend", "cuda"}, {},
                     "cannot run kernels on this machine"});
  for (const auto& c : cases) {
    auto r = run(c.args, c.env);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(root_ / "ws" / "runs")) << c.says;
  }
}

}  // namespace
}  // namespace evk
