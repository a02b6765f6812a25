#include "llm/cassette.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/paths.h"
#include "fake_openai.h"
#include "llm/accountant.h"

using namespace evk;
namespace fs = std::filesystem;

namespace {

class CassetteTest : public ::testing::Test {
 protected:
  CassetteTest() {
    dir_ = fs::temp_directory_path() / ("evk-cassette-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    cfg_.set("llm.base_url", server_.base_url(), "test");
    cfg_.set("llm.retries", "0", "test");
    cfg_.set("llm.timeout_s", "5", "test");
  }
  ~CassetteTest() override { fs::remove_all(dir_); }

  std::unique_ptr<Provider> recorder(const fs::path& file) {
    cfg_.set("llm.record", file.string(), "test");
    return make_provider("openai:fake", cfg_);
  }

  static std::vector<Message> chat(const std::string& user) {
    return {{"system", "You write kernels."}, {"user", user}};
  }

  static std::vector<std::string> lines(const fs::path& f) {
    std::ifstream in(f);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

  fake::FakeOpenAI server_;
  Config cfg_;
  fs::path dir_;
};

TEST_F(CassetteTest, KeyCoversModelMessagesAndOptionsButNotTask) {
  CompletionOptions a, b;
  b.task = "other";
  EXPECT_EQ(cassette_key("m", chat("x"), a), cassette_key("m", chat("x"), b));
  EXPECT_NE(cassette_key("m", chat("x"), a), cassette_key("n", chat("x"), a));
  EXPECT_NE(cassette_key("m", chat("x"), a), cassette_key("m", chat("y"), a));
  b.seed = 1;
  EXPECT_NE(cassette_key("m", chat("x"), a), cassette_key("m", chat("x"), b));
  CompletionOptions c;
  c.extra = {{"top_k", 3}};
  EXPECT_NE(cassette_key("m", chat("x"), a), cassette_key("m", chat("x"), c));
  EXPECT_EQ(cassette_key("m", chat("x"), a).size(), 16u);
}

TEST_F(CassetteTest, RecordThenReplayInOrderIncludingDuplicates) {
  fs::path file = dir_ / "run.jsonl";
  std::vector<std::string> texts;
  {
    auto p = recorder(file);
    CompletionOptions opt;
    opt.task = "relu";
    texts.push_back(p->complete(chat("relu"), opt).text);
    texts.push_back(p->complete(chat("relu"), opt).text);  // same request, a different sample
    texts.push_back(p->complete(chat("gelu"), opt).text);
  }
  ASSERT_NE(texts[0], texts[1]);
  auto ls = lines(file);
  ASSERT_EQ(ls.size(), 3u);
  auto first = nlohmann::json::parse(ls[0]);
  EXPECT_EQ(first["model"], "openai:fake");
  EXPECT_EQ(first["task"], "relu");
  EXPECT_EQ(first["key"], cassette_key("openai:fake", chat("relu"), CompletionOptions{}));
  EXPECT_EQ(ls[0].find("Bearer"), std::string::npos);

  int served = server_.requests();
  Config rc;
  auto acct = Accountant::from_config(rc);
  auto replay = make_provider("replay:" + file.string(), rc, acct);
  EXPECT_EQ(replay->name(), "replay:" + file.string());
  CompletionOptions opt;
  EXPECT_EQ(replay->complete(chat("gelu"), opt).text, texts[2]);
  EXPECT_EQ(replay->complete(chat("relu"), opt).text, texts[0]);
  EXPECT_EQ(replay->complete(chat("relu"), opt).text, texts[1]);
  EXPECT_EQ(server_.requests(), served);  // replay never touches the network
  EXPECT_EQ(acct->run().calls, 3);
  EXPECT_GT(acct->run().completion_tokens, 0);
  try {
    replay->complete(chat("relu"), opt);
    FAIL() << "a third identical request was answered";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind, "replay_miss");
    EXPECT_NE(std::string(e.what()).find("beyond the 2 recorded"), std::string::npos) << e.what();
  }
}

TEST_F(CassetteTest, MissNamesTheKeyAndTheFirstDifference) {
  fs::path file = dir_ / "miss.jsonl";
  recorder(file)->complete(chat("write a relu kernel for floats"), {});
  ReplayProvider replay(file);
  auto req = chat("write a relu kernel for doubles");
  std::string key = cassette_key("openai:fake", req, {});
  try {
    replay.complete(req, {});
    FAIL();
  } catch (const ProviderError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(key), std::string::npos) << m;
    EXPECT_NE(m.find("message 1 (user) differs at character 24"), std::string::npos) << m;
    EXPECT_NE(m.find("floats"), std::string::npos) << m;
    EXPECT_NE(m.find("doubles"), std::string::npos) << m;
    EXPECT_NE(m.find("line 1"), std::string::npos) << m;
  }
  CompletionOptions seeded;
  seeded.seed = 9;
  try {
    replay.complete(chat("write a relu kernel for floats"), seeded);
    FAIL();
  } catch (const ProviderError& e) {
    EXPECT_NE(std::string(e.what()).find("option 'seed' is 0 recorded vs 9 requested"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CassetteTest, ConcurrentRecordersNeverInterleaveLines) {
  fs::path file = dir_ / "parallel.jsonl";
  cfg_.set("llm.concurrency", "8", "test");
  auto p = recorder(file);
  auto q = recorder(file);  // a second provider (own descriptor) appending to the same file
  std::vector<std::thread> ts;
  for (int i = 0; i < 32; ++i)
    ts.emplace_back([&, i] {
      CompletionOptions opt;
      opt.seed = i;
      (i % 2 ? p : q)->complete(chat(std::string(2000 + i, 'x')), opt);
    });
  for (auto& t : ts) t.join();
  auto ls = lines(file);
  ASSERT_EQ(ls.size(), 32u);
  for (const auto& l : ls) EXPECT_NO_THROW(nlohmann::json::parse(l));
  ReplayProvider replay(file);
  EXPECT_EQ(replay.size(), 32u);
}

TEST_F(CassetteTest, TornLastLineIsIgnoredABadMiddleLineIsAnError) {
  fs::path file = dir_ / "torn.jsonl";
  recorder(file)->complete(chat("a"), {});
  std::string good = read_file(file);
  write_file_atomic(file, good + "{\"v\":1,\"key\":\"abc");  // a crash mid-append
  EXPECT_EQ(ReplayProvider(file).size(), 1u);
  write_file_atomic(file, "not json\n" + good);
  try {
    ReplayProvider bad(file);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("torn.jsonl:1"), std::string::npos) << e.what();
  }
}

TEST_F(CassetteTest, EmptyCassetteMissSaysSo) {
  fs::path file = dir_ / "empty.jsonl";
  write_file_atomic(file, "");
  ReplayProvider replay(file);
  try {
    replay.complete(chat("a"), {});
    FAIL();
  } catch (const ProviderError& e) {
    EXPECT_NE(std::string(e.what()).find("the cassette is empty"), std::string::npos);
  }
}

// The fix a cassette error names is one that exists for every command: the llm.record setting
// (only `llm ping` has a --record flag).
TEST_F(CassetteTest, ErrorsNameTheLlmRecordSetting) {
  try {
    ReplayProvider missing(dir_ / "missing.jsonl");
    FAIL();
  } catch (const UsageError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("llm.record = FILE"), std::string::npos) << m;
    EXPECT_NE(m.find("EVK_LLM_RECORD"), std::string::npos) << m;
    EXPECT_EQ(m.find("--record"), std::string::npos) << m;
  }
  try {
    recorder(dir_)->complete(chat("a"), {});  // a folder cannot be appended to
    FAIL();
  } catch (const UsageError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("check the path in llm.record"), std::string::npos) << m;
    EXPECT_EQ(m.find("--record"), std::string::npos) << m;
  }
}

}  // namespace
