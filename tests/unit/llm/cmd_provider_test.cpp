// The cmd: provider against a real subprocess (tests/data/cmd_coder/coder.py): what the tool
// reads on stdin, its reply, retries, timeouts, failures, accounting and recording.
#include "llm/cmd.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/paths.h"
#include "llm/accountant.h"

using namespace evk;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class CmdProviderTest : public ::testing::Test {
 protected:
  CmdProviderTest() {
    dir_ = fs::temp_directory_path() /
           ("evk-cmd-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    cfg_.set("llm.retries", "0", "test");
    cfg_.set("llm.retry_base_s", "0.01", "test");
    cfg_.set("llm.timeout_s", "20", "test");
  }
  ~CmdProviderTest() override { fs::remove_all(dir_); }

  static std::string coder() { return (data_root() / "tests/data/cmd_coder/coder.py").string(); }
  std::unique_ptr<Provider> provider(const std::string& args) {
    return make_provider("cmd:" + coder() + " " + args, cfg_);
  }
  static std::vector<Message> chat(const std::string& user) {
    return {{"system", "You write kernels."}, {"user", user}};
  }

  Config cfg_;
  fs::path dir_;
};

TEST_F(CmdProviderTest, ToolReadsTheMessagesAsJsonAndItsStdoutIsTheReply) {
  auto p = provider("echo");
  CompletionOptions o;
  o.seed = 42;
  o.task = "relu";
  o.temperature = 0.3;
  Completion c = p->complete(chat("write a relu \"kernel\"\nwith two lines"), o);
  json got = json::parse(c.text);
  const json& req = got["request"];
  ASSERT_EQ(req["messages"].size(), 2u);
  EXPECT_EQ(req["messages"][0]["role"], "system");
  EXPECT_EQ(req["messages"][1]["content"], "write a relu \"kernel\"\nwith two lines");
  EXPECT_EQ(req["seed"], 42);
  EXPECT_EQ(req["task"], "relu");
  EXPECT_DOUBLE_EQ(req["temperature"].get<double>(), 0.3);
  EXPECT_EQ(got["env_task"], "relu");
  EXPECT_EQ(got["env_seed"], "42");
  EXPECT_TRUE(c.usage.estimated);
  EXPECT_GT(c.usage.prompt_tokens, 0);
  EXPECT_EQ(c.attempts, 1);
  EXPECT_EQ(p->name().rfind("cmd:", 0), 0u);
}

TEST_F(CmdProviderTest, ReplyWithCodeIsExtracted) {
  Completion c = provider("reply")->complete(chat("relu please"), {});
  EXPECT_NE(c.text.find("the last user message began: 'relu please'"), std::string::npos);
  auto code = extract_code(c.text);
  ASSERT_TRUE(code.has_value());
  EXPECT_NE(code->find("evk_forward"), std::string::npos);
}

// A local CLI that prints its thoughts first (a reasoning model without a reasoning parser):
// they become the reasoning, not the answer, as from an HTTP endpoint.
TEST_F(CmdProviderTest, LeadingThinkTagsAreReasoningNotTheReply) {
  fs::path tool = dir_ / "thinker.sh";
  std::ofstream(tool) << "cat > /dev/null\nprintf '<think>\\n```cpp\\nwrong\\n```\\n</think>\\n\\n"
                         "```cpp\\nright\\n```\\n'\n";
  Completion c = make_provider("cmd:/bin/sh " + tool.string(), cfg_)->complete(chat("x"), {});
  EXPECT_EQ(c.text, "```cpp\nright\n```\n");
  EXPECT_NE(c.reasoning.find("wrong"), std::string::npos);
  EXPECT_EQ(extract_code(c.text).value(), "right\n");
}

TEST_F(CmdProviderTest, FailureIsRetriedThenSucceeds) {
  cfg_.set("llm.retries", "2", "test");
  auto p = provider("fail-first " + (dir_ / "counter").string());
  Completion c = p->complete(chat("x"), {});
  EXPECT_EQ(c.attempts, 2);
  EXPECT_NE(c.text.find("evk_forward"), std::string::npos);
}

TEST_F(CmdProviderTest, PersistentFailureNamesTheToolAndItsStderr) {
  cfg_.set("llm.retries", "1", "test");
  auto p = provider("fail");
  try {
    p->complete(chat("x"), {});
    FAIL() << "no error";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind, "cmd");
    EXPECT_EQ(e.attempts, 2);
    std::string m = e.what();
    EXPECT_NE(m.find("exit code 2"), std::string::npos) << m;
    EXPECT_NE(m.find("no credits left"), std::string::npos) << m;
    EXPECT_NE(m.find("gave up after 2 attempts"), std::string::npos) << m;
  }
}

TEST_F(CmdProviderTest, TimeoutKillsTheTool) {
  cfg_.set("llm.timeout_s", "1", "test");
  auto p = provider("sleep 30");
  auto t0 = std::chrono::steady_clock::now();
  try {
    p->complete(chat("x"), {});
    FAIL() << "no error";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind, "timeout");
    EXPECT_NE(std::string(e.what()).find("llm.timeout_s"), std::string::npos);
  }
  // Killed at the limit, not waited for: far less than the tool's 30 s.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 25);
}

TEST_F(CmdProviderTest, SilentToolIsAnEmptyReplyNotRetried) {
  cfg_.set("llm.retries", "3", "test");
  try {
    provider("silent")->complete(chat("x"), {});
    FAIL() << "no error";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind, "empty");
    EXPECT_EQ(e.attempts, 1);
  }
}

TEST_F(CmdProviderTest, AccountingAndBudgetsApply) {
  cfg_.set("llm.budget_calls", "2", "test");
  auto acc = Accountant::from_config(cfg_);
  auto p = make_provider("cmd:" + coder() + " reply", cfg_, acc);
  CompletionOptions o;
  o.task = "relu";
  p->complete(chat("one"), o);
  p->complete(chat("two"), o);
  EXPECT_THROW(p->complete(chat("three"), o), BudgetExceeded);
  Totals t = acc->run();
  EXPECT_EQ(t.calls, 2);
  EXPECT_EQ(t.estimated_calls, 2);
  EXPECT_GT(t.prompt_tokens, 0);
  EXPECT_GT(t.completion_tokens, 0);
  EXPECT_EQ(acc->task("relu").calls, 2);
}

TEST_F(CmdProviderTest, RecordedExchangesReplay) {
  fs::path cassette = dir_ / "cmd.jsonl";
  cfg_.set("llm.record", cassette.string(), "test");
  Completion c = provider("reply")->complete(chat("record me"), {});
  std::ifstream in(cassette);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(json::parse(line)["model"].get<std::string>().rfind("cmd:", 0), 0u);
  cfg_.set("llm.record", "", "test");
  auto replay = make_provider("replay:" + cassette.string(), cfg_);
  EXPECT_EQ(replay->complete(chat("record me"), {}).text, c.text);
}

TEST_F(CmdProviderTest, BadSpecsAreUsageErrors) {
  EXPECT_THROW(make_provider("cmd:", cfg_), UsageError);
  EXPECT_THROW(make_provider("cmd:   ", cfg_), UsageError);
  EXPECT_THROW(make_provider("cmd:/no/such/tool --x", cfg_), UsageError);
  EXPECT_THROW(make_provider("cmd:no-such-tool-on-path-evk", cfg_), UsageError);
  EXPECT_THROW(make_provider("cmd:" + coder() + " 'unclosed", cfg_), UsageError);
  // A data file that is not executable is no tool.
  EXPECT_THROW(make_provider("cmd:" + (data_root() / "tests/data/cmd_coder").string() + "/../../README.md",
                             cfg_),
               UsageError);
}

TEST(SplitCommand, QuotesGroupWords) {
  EXPECT_EQ(split_command("tool  a 'b c' \"d 'e'\" f\"g h\""),
            (std::vector<std::string>{"tool", "a", "b c", "d 'e'", "fg h"}));
  EXPECT_EQ(split_command("x ''"), (std::vector<std::string>{"x", ""}));
  EXPECT_TRUE(split_command("  ").empty());
}

}  // namespace
