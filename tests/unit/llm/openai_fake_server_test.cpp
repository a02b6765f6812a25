// The openai provider against the fake server on a real loopback socket: every fault the
// issue names, what the client does about it, and that accounting stays exact.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "fake_openai.h"
#include "llm/accountant.h"
#include "llm/provider.h"

using namespace evk;
using fake::Behavior;
using fake::parse_behavior;

namespace {

const std::string kServerKey = "sk-test-SECRET-9f8e7d6c5b4a";

std::vector<Behavior> behaviors(std::initializer_list<const char*> specs) {
  std::vector<Behavior> out;
  for (const char* s : specs) out.push_back(parse_behavior(s));
  return out;
}

class FakeServerTest : public ::testing::Test {
 protected:
  FakeServerTest() : server_(fake::ServerOptions{kServerKey, {"fake"}, 0, 64}) {
    cfg_.set("llm.base_url", server_.base_url(), "test");
    cfg_.set("llm.api_key", kServerKey, "test");
    cfg_.set("llm.timeout_s", "0.4", "test");
    cfg_.set("llm.connect_timeout_s", "0.4", "test");
    cfg_.set("llm.retries", "3", "test");
    cfg_.set("llm.retry_base_s", "0.01", "test");
    cfg_.set("llm.retry_max_s", "0.05", "test");
    cfg_.set("llm.concurrency", "4", "test");
  }

  std::unique_ptr<Provider> make(const std::string& model = "openai:fake") {
    acct_ = Accountant::from_config(cfg_);
    return make_provider(model, cfg_, acct_);
  }

  static std::vector<Message> prompt(const std::string& text = "write relu") {
    return {{"system", "You write kernels."}, {"user", text}};
  }

  // The call fails with a ProviderError; returns it after checking the key is not in it.
  ProviderError fails(Provider& p, const CompletionOptions& opt = {}) {
    try {
      p.complete(prompt(), opt);
    } catch (const ProviderError& e) {
      EXPECT_EQ(std::string(e.what()).find(kServerKey), std::string::npos) << e.what();
      return e;
    }
    ADD_FAILURE() << "the call succeeded";
    return ProviderError("none", "");
  }

  // What the client accounted equals what the server sent whole.
  void expect_exact_accounting() {
    Totals t = acct_->run();
    EXPECT_EQ(t.prompt_tokens, server_.prompt_tokens_served());
    EXPECT_EQ(t.completion_tokens, server_.completion_tokens_served());
    EXPECT_EQ(t.attempts, server_.requests());
  }

  fake::FakeOpenAI server_;
  Config cfg_;
  std::shared_ptr<Accountant> acct_;
};

TEST_F(FakeServerTest, NormalReply) {
  auto p = make();
  EXPECT_EQ(p->name(), "openai:fake");
  Completion c = p->complete(prompt(), {});
  EXPECT_TRUE(extract_code(c.text).has_value()) << c.text;
  EXPECT_EQ(c.model, "fake");
  EXPECT_EQ(c.finish_reason, "stop");
  EXPECT_EQ(c.attempts, 1);
  EXPECT_GT(c.latency_s, 0);
  EXPECT_GT(c.usage.completion_tokens, 0);
  EXPECT_FALSE(c.usage.estimated);
  ASSERT_EQ(server_.authorizations().size(), 1u);
  EXPECT_EQ(server_.authorizations()[0], "Bearer " + kServerKey);
  Totals t = acct_->run();
  EXPECT_EQ(t.calls, 1);
  EXPECT_EQ(t.failed, 0);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, RequestCarriesOptionsAndExtraBody) {
  cfg_.set("llm.extra_body", R"({"reasoning_effort": "low", "max_tokens": null, "max_completion_tokens": 99})", "test");
  auto p = make();
  CompletionOptions opt;
  opt.temperature = 0.25;
  opt.seed = 42;
  opt.extra = {{"top_k", 7}};
  p->complete(prompt(), opt);
  auto body = server_.bodies().at(0);
  EXPECT_EQ(body["model"], "fake");
  EXPECT_EQ(body["temperature"], 0.25);
  EXPECT_EQ(body["seed"], 42);
  EXPECT_EQ(body["top_k"], 7);
  EXPECT_EQ(body["reasoning_effort"], "low");
  EXPECT_EQ(body["max_completion_tokens"], 99);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_EQ(body["messages"][0]["role"], "system");
}

TEST_F(FakeServerTest, DelayPastTheTimeoutIsRetried) {
  server_.script(behaviors({"delay:1.5", "ok"}));
  auto p = make();
  Completion c = p->complete(prompt(), {});
  EXPECT_EQ(c.attempts, 2);
  EXPECT_EQ(server_.requests(), 2);
  EXPECT_EQ(acct_->run().calls, 1);
  expect_exact_accounting();  // the timed-out reply counts nowhere
}

TEST_F(FakeServerTest, PersistentTimeoutGivesUpAfterTheRetries) {
  cfg_.set("llm.retries", "1", "test");
  server_.set_default(parse_behavior("delay:1.5"));
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.kind, "timeout");
  EXPECT_EQ(e.attempts, 2);
  EXPECT_NE(std::string(e.what()).find("gave up after 2 attempts"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("llm.timeout_s"), std::string::npos) << e.what();
  EXPECT_EQ(server_.requests(), 2);
  Totals t = acct_->run();
  EXPECT_EQ(t.calls, 0);
  EXPECT_EQ(t.failed, 1);
  EXPECT_EQ(t.tokens(), 0);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, RateLimitHonoursRetryAfter) {
  server_.script(behaviors({"429:1", "ok"}));
  auto p = make();
  auto t0 = std::chrono::steady_clock::now();
  Completion c = p->complete(prompt(), {});
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(c.attempts, 2);
  // A lower bound only (a sleep never ends early): back-off alone is capped at 0.05 s here.
  EXPECT_GE(waited, 1.0);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, RetryAfterBeyondTheCapFailsAtOnce) {
  cfg_.set("llm.retry_after_max_s", "5", "test");
  server_.script(behaviors({"429:3600"}));
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(server_.requests(), 1);
  EXPECT_NE(std::string(e.what()).find("retry after 3600 s"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("llm.retry_after_max_s"), std::string::npos);
}

TEST_F(FakeServerTest, ServerErrorThenSuccess) {
  server_.script(behaviors({"500", "503", "ok"}));
  auto p = make();
  Completion c = p->complete(prompt(), {});
  EXPECT_EQ(c.attempts, 3);
  EXPECT_EQ(acct_->run().calls, 1);
  EXPECT_EQ(acct_->run().attempts, 3);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, ServerErrorsExhaustTheRetries) {
  cfg_.set("llm.retries", "2", "test");
  server_.set_default(parse_behavior("502"));
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.kind, "http");
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(server_.requests(), 3);
  EXPECT_NE(std::string(e.what()).find("HTTP 502"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("gave up after 3 attempts"), std::string::npos);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, MalformedJsonIsNotRetried) {
  server_.script(behaviors({"malformed"}));
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.kind, "malformed");
  EXPECT_EQ(server_.requests(), 1);
  EXPECT_NE(std::string(e.what()).find("not JSON"), std::string::npos) << e.what();
  EXPECT_EQ(acct_->run().failed, 1);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, TruncatedBodyIsRetried) {
  server_.script(behaviors({"truncated", "ok"}));
  auto p = make();
  EXPECT_EQ(p->complete(prompt(), {}).attempts, 2);
  expect_exact_accounting();

  server_.set_default(parse_behavior("truncated"));
  cfg_.set("llm.retries", "1", "test");
  auto q = make();
  ProviderError e = fails(*q);
  EXPECT_EQ(e.kind, "connection");
  EXPECT_EQ(e.attempts, 2);
}

TEST_F(FakeServerTest, ConnectionResetIsRetried) {
  server_.script(behaviors({"reset", "reset", "ok"}));
  auto p = make();
  EXPECT_EQ(p->complete(prompt(), {}).attempts, 3);
  expect_exact_accounting();

  server_.set_default(parse_behavior("reset"));
  cfg_.set("llm.retries", "0", "test");
  auto q = make();
  ProviderError e = fails(*q);
  EXPECT_EQ(e.kind, "connection");
  EXPECT_NE(std::string(e.what()).find("failed mid-request"), std::string::npos) << e.what();
}

TEST_F(FakeServerTest, EmptyChoicesIsAnErrorWithoutRetry) {
  server_.script(behaviors({"empty"}));
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.kind, "empty");
  EXPECT_EQ(server_.requests(), 1);
  EXPECT_NE(std::string(e.what()).find("'choices' list is empty"), std::string::npos);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, WrongKeyIs401WithoutRetryAndTheKeyStaysSecret) {
  const std::string wrong = "sk-wrong-KEY-0000111122223333";
  cfg_.set("llm.api_key", wrong, "test");
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.http_status, 401);
  EXPECT_EQ(server_.requests(), 1);
  std::string msg = e.what();
  EXPECT_NE(msg.find("API key was rejected"), std::string::npos) << msg;
  EXPECT_NE(msg.find("EVK_API_KEY"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(wrong), std::string::npos) << msg;  // the server echoed it; we must not
  EXPECT_NE(msg.find("***"), std::string::npos) << msg;
}

TEST_F(FakeServerTest, UnknownModelIs404NamingTheModel) {
  auto p = make("openai:no-such-model");
  ProviderError e = fails(*p);
  EXPECT_EQ(e.http_status, 404);
  EXPECT_EQ(server_.requests(), 1);
  EXPECT_NE(std::string(e.what()).find("model 'no-such-model' is not served"), std::string::npos)
      << e.what();
  EXPECT_NE(std::string(e.what()).find("/v1/models"), std::string::npos);
}

TEST_F(FakeServerTest, WrongPathIs404AboutTheBaseUrl) {
  cfg_.set("llm.base_url", "http://127.0.0.1:" + std::to_string(server_.port()), "test");  // no /v1
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.http_status, 404);
  EXPECT_NE(std::string(e.what()).find("/v1"), std::string::npos) << e.what();
}

TEST_F(FakeServerTest, ConnectionRefusedIsRetriedThenDiagnosed) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(getsockname(s, reinterpret_cast<sockaddr*>(&a), &len), 0);
  close(s);  // bound then closed: nothing listens on that port
  cfg_.set("llm.base_url", "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/v1", "test");
  cfg_.set("llm.retries", "1", "test");
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.kind, "refused");
  EXPECT_EQ(e.attempts, 2);
  EXPECT_NE(std::string(e.what()).find("is the server running"), std::string::npos) << e.what();
}

TEST_F(FakeServerTest, DnsFailureIsNotRetried) {
  cfg_.set("llm.base_url", "http://no-such-host.invalid/v1", "test");
  cfg_.set("llm.connect_timeout_s", "2", "test");
  auto p = make();
  ProviderError e = fails(*p);
  // Without a resolver at all, curl may time out instead; both are diagnosed, never hang.
  EXPECT_TRUE(e.kind == "dns" || e.kind == "timeout") << e.kind << ": " << e.what();
  if (e.kind == "dns") {
    EXPECT_EQ(e.attempts, 1);
    EXPECT_NE(std::string(e.what()).find("cannot resolve"), std::string::npos);
  }
}

// A TCP listener that answers every connection at once with plain HTTP, whatever it is sent:
// what an https:// URL pointing at an http:// server meets, without depending on how the
// HTTP server parses a TLS ClientHello.
class PlainHttpListener {
 public:
  PlainHttpListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd_, 8) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("cannot listen on loopback");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      for (int c; (c = accept(fd_, nullptr, nullptr)) >= 0; close(c)) {
        const char reply[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
        if (write(c, reply, sizeof reply - 1) < 0) continue;
      }
    });
  }
  ~PlainHttpListener() {
    shutdown(fd_, SHUT_RDWR);  // wakes accept()
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1, port_ = 0;
  std::thread thread_;
};

TEST_F(FakeServerTest, TlsAgainstAPlainHttpServerIsDiagnosed) {
  PlainHttpListener plain;
  cfg_.set("llm.base_url", "https://127.0.0.1:" + std::to_string(plain.port()) + "/v1", "test");
  cfg_.set("llm.timeout_s", "10", "test");
  cfg_.set("llm.connect_timeout_s", "10", "test");
  auto p = make();
  ProviderError e = fails(*p);
  EXPECT_EQ(e.kind, "tls") << e.what();
  EXPECT_EQ(e.attempts, 1);
  EXPECT_NE(std::string(e.what()).find("TLS"), std::string::npos);
}

TEST_F(FakeServerTest, NoUsageIsEstimatedAndMarked) {
  server_.script(behaviors({"no_usage", "reasoning"}));
  auto p = make();
  Completion a = p->complete(prompt(), {});
  EXPECT_TRUE(a.usage.estimated);
  EXPECT_GT(a.usage.completion_tokens, 0);
  Completion b = p->complete(prompt(), {});
  EXPECT_FALSE(b.usage.estimated);
  EXPECT_EQ(b.reasoning, "Let me think about the loop order.");
  EXPECT_EQ(acct_->run().estimated_calls, 1);
}

TEST_F(FakeServerTest, ConcurrencyLimitHoldsUnder32ParallelCallers) {
  server_.set_default(parse_behavior("delay:0.05"));
  auto p = make();
  std::atomic<int> ok{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 32; ++i)
    callers.emplace_back([&, i] {
      CompletionOptions opt;
      opt.task = "task" + std::to_string(i % 3);
      opt.seed = i;
      p->complete(prompt("kernel " + std::to_string(i)), opt);
      ++ok;
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(ok.load(), 32);
  EXPECT_LE(server_.max_in_flight(), 4);
  EXPECT_GE(server_.max_in_flight(), 2);  // the callers really did overlap
  EXPECT_EQ(acct_->run().calls, 32);
  int64_t per_task = 0;
  for (const auto& [task, t] : acct_->tasks()) per_task += t.calls;
  EXPECT_EQ(per_task, 32);
  expect_exact_accounting();
}

TEST_F(FakeServerTest, CallBudgetStopsAtTheCapUnderParallelCallers) {
  cfg_.set("llm.budget_calls", "10", "test");
  server_.set_default(parse_behavior("delay:0.02"));
  auto p = make();
  std::atomic<int> ok{0}, refused{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 32; ++i)
    callers.emplace_back([&] {
      try {
        p->complete(prompt(), {});
        ++ok;
      } catch (const BudgetExceeded& e) {
        ++refused;
      }
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(ok.load(), 10);
  EXPECT_EQ(refused.load(), 22);
  EXPECT_EQ(server_.requests(), 10);  // refused calls never reached the server
  expect_exact_accounting();
}

TEST_F(FakeServerTest, TokenBudgetPerTaskStopsThatTaskOnly) {
  auto probe = make();
  int64_t per_call = probe->complete(prompt(), {}).usage.total();
  cfg_.set("llm.budget_task_tokens", std::to_string(2 * per_call + 1), "test");
  auto p = make();
  CompletionOptions a, b;
  a.task = "a";
  b.task = "b";
  p->complete(prompt(), a);
  p->complete(prompt(), a);
  p->complete(prompt(), a);  // 2 calls left it 1 token under: a third is admitted
  try {
    p->complete(prompt(), a);
    FAIL() << "task a passed its token budget";
  } catch (const BudgetExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("task 'a'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("llm.budget_task_tokens"), std::string::npos);
  }
  EXPECT_NO_THROW(p->complete(prompt(), b));
  EXPECT_EQ(acct_->task("a").calls, 3);
  EXPECT_EQ(acct_->task("b").calls, 1);
}

TEST_F(FakeServerTest, CostFromThePriceTable) {
  cfg_.set("llm.prices", "fake=2/8", "test");
  auto p = make();
  Completion c = p->complete(prompt(), {});
  double expect = (c.usage.prompt_tokens * 2.0 + c.usage.completion_tokens * 8.0) / 1e6;
  EXPECT_DOUBLE_EQ(c.cost_usd, expect);
  EXPECT_DOUBLE_EQ(acct_->run().cost_usd, expect);
}

TEST(MakeProvider, UsageErrors) {
  Config cfg;
  EXPECT_THROW(make_provider("gpt-5.2", cfg), UsageError);
  EXPECT_THROW(make_provider("anthropic:claude", cfg), UsageError);
  EXPECT_THROW(make_provider("openai:", cfg), UsageError);
  EXPECT_THROW(make_provider("replay:", cfg), UsageError);
  EXPECT_THROW(make_provider("replay:/no/such/cassette.jsonl", cfg), UsageError);
  cfg.set("llm.api_key", "", "test");
  try {
    make_provider("openai:gpt-5.2", cfg);  // https default endpoint, no key
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("EVK_API_KEY"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("OPENAI_API_KEY"), std::string::npos);
  }
  cfg.set("llm.base_url", "http://127.0.0.1:1/v1", "test");
  EXPECT_NO_THROW(make_provider("openai:local", cfg));  // local http servers need no key
  cfg.set("llm.extra_body", "[1]", "test");
  EXPECT_THROW(make_provider("openai:local", cfg), UsageError);
  cfg.set("llm.extra_body", "{oops", "test");
  EXPECT_THROW(make_provider("openai:local", cfg), UsageError);
}

}  // namespace
