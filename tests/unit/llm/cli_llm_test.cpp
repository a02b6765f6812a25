// `evokernel llm ping` end to end: the real binary against the fake server, and the API key
// never printed by ping (success or failure) or by `config show`.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "core/process.h"
#include "fake_openai.h"

using namespace evk;
namespace fs = std::filesystem;

extern char** environ;

namespace {

const std::string kKey = "sk-cli-SECRET-0a1b2c3d4e5f";

class CliLlmTest : public ::testing::Test {
 protected:
  CliLlmTest() {
    ws_ = fs::temp_directory_path() / ("evk-cli-llm-" + std::to_string(getpid()));
    fs::create_directories(ws_);
  }
  ~CliLlmTest() override { fs::remove_all(ws_); }

  ProcessResult cli(std::vector<std::string> args, const std::string& key = kKey) {
    std::vector<std::string> argv = {EVK_CLI_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--workspace", ws_.string()});
    ProcessOptions o;
    o.timeout_s = 60;
    o.env = {{"EVK_API_KEY", key}, {"OPENAI_API_KEY", ""}};
    return run_process(argv, o);
  }

  static void expect_no_key(const ProcessResult& r, const std::string& key = kKey) {
    EXPECT_EQ(r.out.find(key), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(key), std::string::npos) << r.err;
  }

  fs::path ws_;
};

TEST_F(CliLlmTest, PingPrintsLatencyModelAndUsage) {
  fake::FakeOpenAI server(fake::ServerOptions{kKey, {"fake"}, 0, 8});
  auto r = cli({"llm", "ping", "--model", "openai:fake", "--base-url", server.base_url()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok: latency"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model: fake"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("usage: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("API key: set, from env:EVK_API_KEY"), std::string::npos) << r.out;
  expect_no_key(r);
  EXPECT_EQ(server.requests(), 1);
  auto body = server.bodies().at(0);
  EXPECT_EQ(body["max_tokens"], 16);
}

TEST_F(CliLlmTest, PingDiagnosesARejectedKeyWithoutPrintingIt) {
  fake::FakeOpenAI server(fake::ServerOptions{"sk-the-right-one", {"fake"}, 0, 8});
  auto r = cli({"llm", "ping", "--model", "openai:fake", "--base-url", server.base_url()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("HTTP 401"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("API key was rejected"), std::string::npos) << r.err;
  expect_no_key(r);
}

TEST_F(CliLlmTest, PingDiagnosesAnUnknownModelAndATimeout) {
  fake::FakeOpenAI server(fake::ServerOptions{"", {"fake"}, 0, 8});
  auto r = cli({"llm", "ping", "--model", "openai:gpt-9", "--base-url", server.base_url()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("model 'gpt-9' is not served"), std::string::npos) << r.err;

  server.set_default(fake::parse_behavior("delay:3"));
  r = cli({"llm", "ping", "--model", "openai:fake", "--base-url", server.base_url(), "--timeout",
           "0.3"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ping failed (timeout)"), std::string::npos) << r.err;
}

TEST_F(CliLlmTest, PingUsageErrorsExitWith2) {
  auto r = cli({"llm", "ping", "--model", "nonsense"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model 'nonsense'"), std::string::npos) << r.err;
  r = cli({"llm", "ping", "--model", "openai:gpt-5.2"}, "");  // https default endpoint, no key
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("EVK_API_KEY"), std::string::npos) << r.err;
}

TEST_F(CliLlmTest, ConfigShowMasksTheKey) {
  auto r = cli({"config", "show"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("llm.api_key"), std::string::npos);
  EXPECT_NE(r.out.find("(set)"), std::string::npos);
  expect_no_key(r);
}

TEST_F(CliLlmTest, PingRecordsACassetteThatReplays) {
  fake::FakeOpenAI server(fake::ServerOptions{kKey, {"fake"}, 0, 8});
  fs::path cassette = ws_ / "ping.jsonl";
  auto r = cli({"llm", "ping", "--model", "openai:fake", "--base-url", server.base_url(),
                "--record", cassette.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli({"llm", "ping", "--model", "replay:" + cassette.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("model: fake"), std::string::npos) << r.out;
  EXPECT_EQ(server.requests(), 1);
}

// The demo path: the fake-openai binary from the build tree, pinged by the evokernel binary.
TEST_F(CliLlmTest, FakeOpenAIBinaryServesPing) {
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  std::string bin = EVK_FAKE_OPENAI_PATH;
  std::vector<std::string> args = {bin, "--port", "0", "--script", "500"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  std::string line;
  char c;
  while (read(pipefd[0], &c, 1) == 1 && c != '\n') line += c;
  ASSERT_EQ(line.rfind("listening on ", 0), 0u) << line;
  std::string url = line.substr(13);
  auto r = cli({"llm", "ping", "--model", "openai:fake", "--base-url", url, "--retries", "1"}, "");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 requests"), std::string::npos) << r.out;  // the scripted 500, retried
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(pipefd[0]);
}

}  // namespace
